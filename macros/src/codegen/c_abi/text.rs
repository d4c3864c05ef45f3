//! The C declaration, the Fortran `bind(C)` interface and the Fortran wrapper of a
//! [`CFunction`], as text for the bindings `gt4rs::ffi::bindings` writes.

use std::fmt::Write as _;

use gt4rs_ir::ScalarType;

use super::{c_type, fortran_type, Arg, CFunction, HandleUse};

/// The Fortran name of the `bind(C)` interface of the C function `c_name` (the wrapper takes
/// the plain name).
pub fn interface_name(c_name: &str) -> String {
    format!("c_{c_name}")
}

/// `/* doc */` over the lines of `doc`.
fn c_comment(doc: &str) -> String {
    let mut out = String::from("/*\n");
    for line in doc.lines() {
        let _ = writeln!(out, " * {line}");
    }
    out.push_str(" */\n");
    out
}

/// `! doc` over the lines of `doc`, indented.
fn fortran_comment(doc: &str, indent: &str) -> String {
    doc.lines().map(|l| format!("{indent}! {l}\n")).collect()
}

/// The C parameters of `f`, one per line.
fn c_params(f: &CFunction) -> Vec<String> {
    let mut params = Vec::new();
    for arg in &f.args {
        match arg {
            Arg::Array(a) => {
                let constness = if a.writes { "" } else { "const " };
                let optional = if a.optional { ", may be NULL" } else { "" };
                params.push(format!(
                    "{constness}{} *{} /* ({}){optional} */",
                    c_type(a.dtype),
                    a.name,
                    a.dims.join(", ")
                ));
                for d in 0..a.dims.len() {
                    params.push(format!("int64_t {}_size_{d}", a.name));
                }
                for d in 0..a.dims.len() {
                    params.push(format!("int64_t {}_stride_{d}", a.name));
                }
            }
            Arg::Scalar { name, dtype } => params.push(format!("{} {name}", c_type(*dtype))),
            Arg::Handle(h) => params.push(match h.usage {
                HandleUse::Read => format!("const {} *{}", h.c_type, h.name),
                HandleUse::Change => format!("{} *{}", h.c_type, h.name),
                HandleUse::Make => format!("{} **{}", h.c_type, h.name),
            }),
        }
    }
    params
}

/// `int name(params);` with its comment.
pub fn c_declaration(f: &CFunction) -> String {
    let params = c_params(f);
    let params = if params.is_empty() {
        "void".to_string()
    } else {
        format!("\n    {}", params.join(",\n    "))
    };
    format!("{}int {}({params});\n", c_comment(&f.doc), f.c_name)
}

/// Continues a Fortran argument list over lines.
fn fortran_list(names: &[String], indent: &str) -> String {
    if names.is_empty() {
        return String::new();
    }
    names.join(&format!(", &\n{indent}"))
}

/// The Fortran names of the C parameters of `f` (each array as pointer, sizes, strides).
fn c_param_names(f: &CFunction) -> Vec<String> {
    let mut names = Vec::new();
    for arg in &f.args {
        match arg {
            Arg::Array(a) => {
                names.push(a.name.clone());
                names.extend((0..a.dims.len()).map(|d| format!("{}_size_{d}", a.name)));
                names.extend((0..a.dims.len()).map(|d| format!("{}_stride_{d}", a.name)));
            }
            other => names.push(other.name().to_string()),
        }
    }
    names
}

/// The `bind(C)` interface of `f` (inside an `interface` block).
pub fn fortran_interface(f: &CFunction) -> String {
    let name = interface_name(&f.c_name);
    let args = fortran_list(&c_param_names(f), "        ");
    let mut out = format!(
        "    function {name}({args}) &\n        bind(C, name=\"{}\") result(status)\n      import\n",
        f.c_name
    );
    for arg in &f.args {
        match arg {
            Arg::Array(a) => {
                let _ = writeln!(out, "      type(c_ptr), value :: {}", a.name);
                for kind in ["size", "stride"] {
                    for d in 0..a.dims.len() {
                        let _ = writeln!(
                            out,
                            "      integer(c_int64_t), value :: {}_{kind}_{d}",
                            a.name
                        );
                    }
                }
            }
            Arg::Scalar { name, dtype } => {
                let _ = writeln!(out, "      {}, value :: {name}", fortran_type(*dtype));
            }
            Arg::Handle(h) => match h.usage {
                HandleUse::Read | HandleUse::Change => {
                    let _ = writeln!(out, "      type(c_ptr), value :: {}", h.name);
                }
                // `T **`: the handle variable itself, by reference.
                HandleUse::Make => {
                    let _ = writeln!(out, "      type(c_ptr) :: {}", h.name);
                }
            },
        }
    }
    let _ = write!(
        out,
        "      integer(c_int) :: status\n    end function {name}\n"
    );
    out
}

/// Fortran's `(:, :, :)` for a rank, and the index of the first element plus a step along
/// dimension `d` (`(1, 2, 1)`).
fn colons(rank: usize) -> String {
    vec![":"; rank].join(", ")
}
fn element(rank: usize, step: Option<usize>) -> String {
    let index: Vec<&str> = (0..rank)
        .map(|d| if Some(d) == step { "2" } else { "1" })
        .collect();
    format!("({})", index.join(", "))
}

/// The wrapper of `f`: takes the model's arrays (contiguous or sections) as assumed-shape
/// dummies, finds their first element, sizes and element strides, and calls the interface.
/// Nothing is copied: the addresses are those of the caller's elements.
pub fn fortran_wrapper(f: &CFunction) -> String {
    let wrapper_args: Vec<String> = f.args.iter().map(|a| a.name().to_string()).collect();
    let mut out = fortran_comment(&f.doc, "  ");
    let _ = writeln!(
        out,
        "  function {}({}) result(status)",
        f.fortran_name,
        fortran_list(&wrapper_args, "      ")
    );
    let mut locals = String::new();
    let mut setup = String::new();
    let mut call = Vec::new();
    for arg in &f.args {
        match arg {
            Arg::Array(a) => {
                let rank = a.dims.len();
                let intent = if a.writes { "inout" } else { "in" };
                let optional = if a.optional { ", optional" } else { "" };
                let _ = writeln!(
                    out,
                    "    ! ({})\n    {}, intent({intent}), target{optional} :: {}({})",
                    a.dims.join(", "),
                    fortran_type(a.dtype),
                    a.name,
                    colons(rank),
                );
                let n = &a.name;
                let _ = writeln!(
                    locals,
                    "    type(c_ptr) :: {n}_p\n    integer(c_int64_t) :: {n}_n({rank})\n    integer(c_int64_t) :: {n}_s({rank})"
                );
                let (open, close, pad) = if a.optional {
                    (
                        format!("    if (present({n})) then\n"),
                        "    end if\n",
                        "  ",
                    )
                } else {
                    (String::new(), "", "")
                };
                setup.push_str(&format!(
                    "    {n}_p = c_null_ptr\n    {n}_n = 0\n    {n}_s = 0\n"
                ));
                setup.push_str(&open);
                for d in 0..rank {
                    let _ = writeln!(
                        setup,
                        "{pad}    {n}_n({}) = size({n}, {}, c_int64_t)",
                        d + 1,
                        d + 1
                    );
                }
                let _ = writeln!(setup, "{pad}    if (size({n}) > 0) then");
                let first = element(rank, None);
                let _ = writeln!(setup, "{pad}      {n}_p = c_loc({n}{first})");
                for d in 0..rank {
                    let _ = writeln!(
                        setup,
                        "{pad}      if ({n}_n({}) > 1) then\n{pad}        {n}_s({}) = gt4rs_elements({n}_p, &\n{pad}            c_loc({n}{}), &\n{pad}            c_sizeof({n}{first}))\n{pad}      end if",
                        d + 1,
                        d + 1,
                        element(rank, Some(d))
                    );
                }
                let _ = writeln!(setup, "{pad}    end if");
                setup.push_str(close);
                call.push(format!("{n}_p"));
                call.extend((1..=rank).map(|d| format!("{n}_n({d})")));
                call.extend((1..=rank).map(|d| format!("{n}_s({d})")));
            }
            Arg::Scalar { name, dtype } => {
                if *dtype == ScalarType::Bool {
                    let _ = writeln!(out, "    logical, intent(in) :: {name}");
                    call.push(format!("logical({name}, c_bool)"));
                } else {
                    let _ = writeln!(out, "    {}, intent(in) :: {name}", fortran_type(*dtype));
                    call.push(name.clone());
                }
            }
            Arg::Handle(h) => {
                let intent = match h.usage {
                    HandleUse::Read => "in",
                    HandleUse::Change | HandleUse::Make => "inout",
                };
                let _ = writeln!(
                    out,
                    "    type({}), intent({intent}) :: {}",
                    h.fortran_type, h.name
                );
                call.push(format!("{}%handle", h.name));
            }
        }
    }
    out.push_str("    integer(c_int) :: status\n");
    out.push_str(&locals);
    out.push_str(&setup);
    let _ = writeln!(
        out,
        "    status = {}({})",
        interface_name(&f.c_name),
        fortran_list(&call, "        ")
    );
    let _ = writeln!(out, "  end function {}", f.fortran_name);
    out
}

/// The C declaration, interface and wrapper of the function freeing a handle of `c_type`
/// (`void c_name(T **handle)`, which nulls the caller's handle).
pub fn free_texts(
    c_name: &str,
    fortran_name: &str,
    c_type: &str,
    fortran_type: &str,
    doc: &str,
) -> [String; 3] {
    let c = format!("{}void {c_name}({c_type} **handle);\n", c_comment(doc));
    let interface_name = interface_name(c_name);
    let interface = format!(
        "    subroutine {interface_name}(handle) bind(C, name=\"{c_name}\")\n      import\n      type(c_ptr) :: handle\n    end subroutine {interface_name}\n"
    );
    let wrapper = format!(
        "{}  subroutine {fortran_name}(handle)\n    type({fortran_type}), intent(inout) :: handle\n    call {interface_name}(handle%handle)\n  end subroutine {fortran_name}\n",
        fortran_comment(doc, "  ")
    );
    [c, interface, wrapper]
}

/// A Fortran derived type holding one handle.
pub fn handle_type(fortran_type: &str, doc: &str) -> String {
    format!(
        "{}  type, public :: {fortran_type}\n    type(c_ptr) :: handle = c_null_ptr\n  end type {fortran_type}\n",
        fortran_comment(doc, "  ")
    )
}
