//! The differential fuzzer's generator: from a `u64` seed, one random well-typed gt4rs program
//! (1 to 3 field operators, scan operators, a program writing each operator's value with an
//! explicit domain), as source text. `tests/tests/fuzz.rs` runs a fixed set of them on every
//! backend and compares the results; `cargo run --release -p gt4rs-fuzz` runs any seed and
//! count (`campaign.rs`).
//!
//! The programs are trees ([`Expr`]) rendered to text, so a disagreement can be minimised by
//! replacing subtrees with leaves of the same type ([`Program::shrink_candidates`]).

use std::collections::BTreeSet;
use std::fmt::Write as _;

/// The sizes of the mesh every generated program runs on (the harness in
/// `gt4rs_tests::fuzz` builds its fields and tables from these).
pub mod mesh {
    pub const CELLS: i64 = 7;
    pub const EDGES: i64 = 11;
    pub const VERTICES: i64 = 5;
    pub const NI: i64 = 6;
    pub const NJ: i64 = 5;
    pub const NK: i64 = 7;
    /// Offsets: name, from, to, neighbours, whether the table holds -1 entries.
    pub const OFFSETS: [(&str, &str, &str, i64, bool); 3] = [
        ("E2C", "Edge", "Cell", 2, false),
        ("C2E3", "Cell", "Edge", 3, false),
        ("V2E6", "Vertex", "Edge", 6, true),
    ];

    /// The extent of a dimension or a local dimension (an offset) by name.
    pub fn extent(dim: &str) -> Option<i64> {
        Some(match dim {
            "Cell" => CELLS,
            "Edge" => EDGES,
            "Vertex" => VERTICES,
            "I" => NI,
            "J" => NJ,
            "K" => NK,
            _ => return OFFSETS.iter().find(|o| o.0 == dim).map(|o| o.3),
        })
    }
}

/// splitmix64: small, seedable, and enough for choosing program shapes.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// The horizontal part of a field's dimensions; every generated field also has `K`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Home {
    Cell,
    Edge,
    Vertex,
    /// Cartesian `(I, J, K)`.
    Ij,
}

impl Home {
    fn dims(self) -> &'static str {
        match self {
            Home::Cell => "(Cell, K)",
            Home::Edge => "(Edge, K)",
            Home::Vertex => "(Vertex, K)",
            Home::Ij => "(I, J, K)",
        }
    }
    fn prefix(self) -> &'static str {
        match self {
            Home::Cell => "c",
            Home::Edge => "e",
            Home::Vertex => "v",
            Home::Ij => "g",
        }
    }
    fn horizontal(self) -> &'static str {
        match self {
            Home::Cell => "Cell",
            Home::Edge => "Edge",
            Home::Vertex => "Vertex",
            Home::Ij => "I",
        }
    }
    /// The offsets leaving this home: (offset, the home it reaches).
    fn offsets(self) -> &'static [(Offset, Home)] {
        match self {
            Home::Edge => &[(Offset::E2C, Home::Cell)],
            Home::Cell => &[(Offset::C2E3, Home::Edge)],
            Home::Vertex => &[(Offset::V2E6, Home::Edge)],
            Home::Ij => &[],
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Offset {
    E2C,
    C2E3,
    V2E6,
}

impl Offset {
    fn name(self) -> &'static str {
        match self {
            Offset::E2C => "E2C",
            Offset::C2E3 => "C2E3",
            Offset::V2E6 => "V2E6",
        }
    }
    fn count(self) -> u64 {
        match self {
            Offset::E2C => 2,
            Offset::C2E3 => 3,
            Offset::V2E6 => 6,
        }
    }
    /// Whether its table may hold -1 (then it is only reduced over, never read by slot).
    fn has_skips(self) -> bool {
        self == Offset::V2E6
    }
    fn from(self) -> Home {
        match self {
            Offset::E2C => Home::Edge,
            Offset::C2E3 => Home::Cell,
            Offset::V2E6 => Home::Vertex,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Dt {
    F64,
    F32,
    I32,
    I64,
    Bool,
}

impl Dt {
    fn name(self) -> &'static str {
        match self {
            Dt::F64 => "f64",
            Dt::F32 => "f32",
            Dt::I32 => "i32",
            Dt::I64 => "i64",
            Dt::Bool => "bool",
        }
    }

    fn is_float(self) -> bool {
        matches!(self, Dt::F64 | Dt::F32)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduce {
    Sum,
    Min,
    Max,
}

/// A transcendental function applied to an operator's result, the only place one appears: its
/// inputs are then bit-identical on every backend and its result differs by at most the
/// libraries' error (see `gt4rs_tests::fuzz::Tolerance`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Math {
    Sin,
    Cos,
    Exp,
    Atan,
    Tanh,
}

impl Math {
    fn name(self) -> &'static str {
        match self {
            Math::Sin => "sin",
            Math::Cos => "cos",
            Math::Exp => "exp",
            Math::Atan => "atan",
            Math::Tanh => "tanh",
        }
    }
}

/// An expression of field type over its home's dimensions with dtype `dt`.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub home: Home,
    pub dt: Dt,
    pub kind: Kind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// Input field number `n` of this home and dtype.
    Input(u32),
    /// The operator's `let` number `n` (of the same home and dtype).
    Var(usize),
    /// `a op b`, `op` one of `+ - * /` (`/` only on floats, or by a literal on integers).
    Bin(char, Box<Expr>, Box<Expr>),
    /// `a op s`: `s` a scalar parameter, a literal or the K-only field.
    BinLeaf(char, Box<Expr>, Leaf),
    Neg(Box<Expr>),
    /// `a < b` (`Bool`); `op` one of `<`, `>`, `<=`, `!=`.
    Cmp(&'static str, Box<Expr>, Box<Expr>),
    Select(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `x.at(O[slot])`: `x` on the offset's target home.
    Slot(Offset, u64, Box<Expr>),
    /// `reduce(x.at(O) [* weight], O)`.
    Reduce(Reduce, Offset, Box<Expr>, bool),
    /// `x.at(K + d)`, `x.at(I + d)`, `x.at(J + d)`.
    Shift(char, i64, Box<Expr>),
    /// `x.at(K + (n % DYNAMIC_SHIFT_MODULUS))`: a level that depends on the level (GT4Py's
    /// `as_offset`), `n` an `i32` value at the point, so the level read is within
    /// `DYNAMIC_SHIFT_MODULUS - 1` of the point's.
    DynamicShift(Box<Expr>, Box<Expr>),
    /// `concat_where(K < level, a, b)`.
    Concat(i64, Box<Expr>, Box<Expr>),
    Cast(Box<Expr>),
    /// `x.abs().sqrt()`: correctly rounded, so exact on every backend.
    Sqrt(Box<Expr>),
    /// Scan operator `n` applied to the arguments.
    Scan(usize, Vec<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Leaf {
    Scalar(u32),
    Float(f64),
    Int(i64),
    /// The K-only input field (broadcast over the home).
    KField,
}

/// A scan operator with `args` `f64` arguments and an `f64` carry.
#[derive(Clone, Debug, PartialEq)]
pub struct ScanOp {
    pub forward: bool,
    pub init: f64,
    pub args: usize,
    /// The body, scalar code over `carry` and `x0…`.
    pub body: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FieldOp {
    pub home: Home,
    pub lets: Vec<Expr>,
    /// One value, or two written as a tuple.
    pub results: Vec<Expr>,
    /// Applied to the first result.
    pub math: Option<Math>,
    /// How many levels the written domain leaves out at the bottom and the top beyond what
    /// the reads need, and whether it leaves out the first and last horizontal point.
    pub trim: (i64, i64, bool),
}

/// One generated program: its seed, operators and scans.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// The seed it was generated from, which also seeds its inputs.
    pub seed: u64,
    /// Told apart from other variants of the same seed when minimising.
    pub tag: Option<usize>,
    pub ops: Vec<FieldOp>,
    pub scans: Vec<ScanOp>,
}

/// The modulus of a dynamic shift's level offset: `K + (n % 3)` reads within 2 levels.
const DYNAMIC_SHIFT_MODULUS: i64 = 3;

/// How far an expression reads from its point, per Cartesian dimension (lowest, highest).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Reach {
    k: (i64, i64),
    i: (i64, i64),
    j: (i64, i64),
}

impl Reach {
    fn union(self, o: Reach) -> Reach {
        let u = |a: (i64, i64), b: (i64, i64)| (a.0.min(b.0), a.1.max(b.1));
        Reach {
            k: u(self.k, o.k),
            i: u(self.i, o.i),
            j: u(self.j, o.j),
        }
    }
}

struct Gen<'a> {
    rng: &'a mut Rng,
    lets: Vec<(Home, Dt)>,
    scans: &'a mut Vec<ScanOp>,
    /// Inside a shift: no scan (a scan read shifted is generated on its own, below; inside
    /// other shifts the fused backends refuse it at `compile()`), and no `let` (it may hold
    /// one).
    no_scan: bool,
}

impl Gen<'_> {
    fn leaf(&mut self, home: Home, dt: Dt) -> Expr {
        let vars: Vec<usize> = (0..self.lets.len())
            .filter(|&v| self.lets[v] == (home, dt))
            .collect();
        let kind = if !vars.is_empty() && !self.no_scan && self.rng.chance(40) {
            Kind::Var(*self.rng.pick(&vars))
        } else {
            Kind::Input(self.rng.below(2) as u32)
        };
        match dt {
            Dt::I64 => Expr {
                home,
                dt,
                kind: Kind::Cast(Box::new(self.leaf(home, Dt::I32))),
            },
            Dt::Bool => self.cmp(home, 0, false),
            _ => Expr { home, dt, kind },
        }
    }

    fn cmp(&mut self, home: Home, depth: u32, plain: bool) -> Expr {
        let dt = if self.rng.chance(25) {
            Dt::I32
        } else {
            self.float()
        };
        let op = *self.rng.pick(&["<", ">", "<=", "!="]);
        let a = self.expr(home, dt, depth.saturating_sub(1), plain);
        let b = self.expr(home, dt, depth.saturating_sub(1), plain);
        Expr {
            home,
            dt: Dt::Bool,
            kind: Kind::Cmp(op, Box::new(a), Box::new(b)),
        }
    }

    /// A random expression of field type on `home` with dtype `dt`. `plain`: no neighbour
    /// access and no scan inside (what a reduction over a table with -1 entries reads: a
    /// gathering value read through it would be a temporary whose reach spans the -1 rows).
    fn expr(&mut self, home: Home, dt: Dt, depth: u32, plain: bool) -> Expr {
        if dt == Dt::Bool {
            return self.cmp(home, depth, plain);
        }
        if depth == 0 || self.rng.chance(15) {
            return self.leaf(home, dt);
        }
        let d = depth - 1;
        let b = Box::new;
        let kind = if dt.is_float() {
            match self.rng.below(16) {
                0 | 1 => {
                    let op = *self.rng.pick(&['+', '-', '*', '/']);
                    Kind::Bin(
                        op,
                        b(self.expr(home, dt, d, plain)),
                        b(self.expr(home, dt, d, plain)),
                    )
                }
                2 => {
                    let op = *self.rng.pick(&['+', '-', '*', '/']);
                    let leaf = match self.rng.below(3) {
                        0 => Leaf::Scalar(self.rng.below(2) as u32),
                        1 => Leaf::KField,
                        _ => Leaf::Float(*self.rng.pick(&[0.5, 0.25, 1.5, 3.0, 0.125])),
                    };
                    Kind::BinLeaf(op, b(self.expr(home, dt, d, plain)), leaf)
                }
                3 => Kind::Neg(b(self.expr(home, dt, d, plain))),
                4 => Kind::Select(
                    b(self.cmp(home, d, plain)),
                    b(self.expr(home, dt, d, plain)),
                    b(self.expr(home, dt, d, plain)),
                ),
                5 | 6 if !plain && home != Home::Ij => {
                    let &(offset, to) = self.rng.pick(home.offsets());
                    if offset.has_skips() || self.rng.chance(50) {
                        let op = *self.rng.pick(&[Reduce::Sum, Reduce::Min, Reduce::Max]);
                        // Over a table with -1 entries only plain values are gathered.
                        let inner = self.shifted(to, dt, d, plain || offset.has_skips());
                        let weighted = op == Reduce::Sum && self.rng.chance(40);
                        Kind::Reduce(op, offset, b(inner), weighted)
                    } else {
                        let slot = self.rng.below(offset.count());
                        Kind::Slot(offset, slot, b(self.shifted(to, dt, d, plain)))
                    }
                }
                7 if !plain && home != Home::Ij => {
                    // A gather read through a gather: the lowering makes the inner one a
                    // temporary when the outer offset has 2 or more neighbours.
                    let &(offset, to) = self.rng.pick(home.offsets());
                    let &(inner_offset, inner_to) = self.rng.pick(to.offsets());
                    let leaf = self.shifted(inner_to, dt, d.saturating_sub(1), true);
                    let inner = Expr {
                        home: to,
                        dt,
                        kind: Kind::Reduce(Reduce::Sum, inner_offset, b(leaf), false),
                    };
                    if offset.has_skips() {
                        Kind::Reduce(Reduce::Sum, offset, b(self.leaf(to, dt)), false)
                    } else {
                        Kind::Reduce(
                            *self.rng.pick(&[Reduce::Sum, Reduce::Max]),
                            offset,
                            b(inner),
                            false,
                        )
                    }
                }
                8 => {
                    let axis = match home {
                        Home::Ij => *self.rng.pick(&['K', 'I', 'J']),
                        _ => 'K',
                    };
                    if axis == 'K' && self.rng.chance(30) {
                        let level = self.leaf(home, Dt::I32);
                        Kind::DynamicShift(b(level), b(self.shifted(home, dt, d, plain)))
                    } else {
                        let by = *self.rng.pick(&[-1, 1, 2, -2]);
                        Kind::Shift(axis, by, b(self.shifted(home, dt, d, plain)))
                    }
                }
                9 => Kind::Concat(
                    1 + self.rng.below(mesh::NK as u64 - 1) as i64,
                    b(self.expr(home, dt, d, plain)),
                    b(self.expr(home, dt, d, plain)),
                ),
                10 => {
                    // From integers, or from the other float type (f64 to f32 rounds).
                    let other = if dt == Dt::F64 { Dt::F32 } else { Dt::F64 };
                    let from = *self.rng.pick(&[Dt::I32, Dt::I32, Dt::I64, other]);
                    Kind::Cast(b(self.expr(home, from, d, plain)))
                }
                11 => Kind::Sqrt(b(self.expr(home, dt, d, plain))),
                13 if !plain
                    && !self.no_scan
                    && dt == Dt::F64
                    && home != Home::Ij
                    && self.scans.len() < 2 =>
                {
                    // A scan on the neighbours, read through one slot (a table without -1)
                    // or summed over the offset: the fused backends run it over the
                    // neighbours the domain reaches. Its arguments gather nothing and read no
                    // variable (which may hold a scan).
                    let &(offset, to) = self.rng.pick(home.offsets());
                    let args = 1 + self.rng.below(2) as usize;
                    let n = self.scan_op(args);
                    let scan = Expr {
                        home: to,
                        dt,
                        kind: Kind::Scan(
                            n,
                            (0..args)
                                .map(|_| self.shifted(to, dt, d.min(2), true))
                                .collect(),
                        ),
                    };
                    if offset.has_skips() {
                        Kind::Reduce(Reduce::Sum, offset, b(scan), false)
                    } else {
                        let slot = self.rng.below(offset.count());
                        Kind::Slot(offset, slot, b(scan))
                    }
                }
                12 if !plain && !self.no_scan && dt == Dt::F64 && self.scans.len() < 2 => {
                    let args = 1 + self.rng.below(2) as usize;
                    let n = self.scan_op(args);
                    // Half of the two-argument scans read one value at the level and at the
                    // level before or after it, as ICON's forward sweep does: what the CPU
                    // loop nest carries from level to level (`gt4rs_ir::carried`).
                    if args == 2 && self.rng.chance(50) {
                        let value = self.shifted(home, dt, d.min(2), plain);
                        let by = *self.rng.pick(&[-1, 1]);
                        let shifted = Expr {
                            home,
                            dt,
                            kind: Kind::Shift('K', by, b(value.clone())),
                        };
                        Kind::Scan(n, vec![value, shifted])
                    } else {
                        Kind::Scan(
                            n,
                            (0..args)
                                .map(|_| self.expr(home, dt, d.min(2), plain))
                                .collect(),
                        )
                    }
                }
                _ => Kind::Bin(
                    *self.rng.pick(&['+', '-', '*']),
                    b(self.expr(home, dt, d, plain)),
                    b(self.expr(home, dt, d, plain)),
                ),
            }
        } else {
            match self.rng.below(6) {
                0 | 1 => Kind::Bin(
                    *self.rng.pick(&['+', '-', '*']),
                    b(self.expr(home, dt, d, plain)),
                    b(self.expr(home, dt, d, plain)),
                ),
                2 => {
                    let op = *self.rng.pick(&['+', '*', '/', '/']);
                    let lit = *self.rng.pick(&[2, 3, 7]);
                    Kind::BinLeaf(op, b(self.expr(home, dt, d, plain)), Leaf::Int(lit))
                }
                3 => Kind::Select(
                    b(self.cmp(home, d, plain)),
                    b(self.expr(home, dt, d, plain)),
                    b(self.expr(home, dt, d, plain)),
                ),
                4 => {
                    // Integers from floats of any size: NaN gives 0, values beyond the range
                    // saturate (`gt4rs_ir::scalar`'s rule, Rust's `as`) on every backend.
                    if self.rng.chance(35) {
                        let float = self.float();
                        let scale = if float == Dt::F64 {
                            *self.rng.pick(&[3.0e9, 1.0e19, 1.0e300])
                        } else {
                            *self.rng.pick(&[3.0e9, 1.0e19, 1.0e30])
                        };
                        let unbounded = Expr {
                            home,
                            dt: float,
                            kind: Kind::BinLeaf(
                                '*',
                                b(self.expr(home, float, d, plain)),
                                Leaf::Float(scale),
                            ),
                        };
                        Kind::Cast(b(unbounded))
                    } else if dt == Dt::I32 && self.rng.chance(50) {
                        // From inputs scaled into range (exact); i32 from i64 wraps.
                        let float = self.float();
                        let scaled = Expr {
                            home,
                            dt: float,
                            kind: Kind::BinLeaf('*', b(self.leaf(home, float)), Leaf::Float(8.0)),
                        };
                        Kind::Cast(b(scaled))
                    } else {
                        let from = if dt == Dt::I32 { Dt::I64 } else { Dt::I32 };
                        Kind::Cast(b(self.expr(home, from, d, plain)))
                    }
                }
                _ => {
                    let axis = if home == Home::Ij { 'I' } else { 'K' };
                    let by = *self.rng.pick(&[-1, 1]);
                    Kind::Shift(axis, by, b(self.shifted(home, dt, d, plain)))
                }
            }
        };
        Expr { home, dt, kind }
    }

    /// A float type: mostly `f64`, the type ICON computes in, `f32` in one of four.
    fn float(&mut self) -> Dt {
        if self.rng.chance(25) {
            Dt::F32
        } else {
            Dt::F64
        }
    }

    /// `expr` under a shift: without scans.
    fn shifted(&mut self, home: Home, dt: Dt, depth: u32, plain: bool) -> Expr {
        let outer = std::mem::replace(&mut self.no_scan, true);
        let e = self.expr(home, dt, depth, plain);
        self.no_scan = outer;
        e
    }

    fn scan_op(&mut self, args: usize) -> usize {
        let factor = *self.rng.pick(&["0.5", "0.25", "-0.5", "0.75"]);
        let x1 = if args > 1 { "x1" } else { "x0" };
        let term = match self.rng.below(4) {
            0 => "x0".to_string(),
            1 => format!("x0 * {x1}"),
            2 => format!("(x0 - {x1}) * 0.5"),
            _ => format!("x0.max({x1})"),
        };
        self.scans.push(ScanOp {
            forward: self.rng.chance(50),
            init: *self.rng.pick(&[0.0, 1.0, -0.5]),
            args,
            body: format!("carry * {factor} + {term}"),
        });
        self.scans.len() - 1
    }
}

impl Program {
    /// The program of `seed`.
    pub fn generate(seed: u64) -> Program {
        let mut rng = Rng::new(seed);
        let mut scans = Vec::new();
        let n_ops = 1 + rng.below(3) as usize;
        let mut ops = Vec::new();
        for _ in 0..n_ops {
            let home = if rng.chance(20) {
                Home::Ij
            } else {
                *rng.pick(&[Home::Cell, Home::Edge, Home::Vertex])
            };
            let depth = 2 + rng.below(3) as u32;
            let mut g = Gen {
                rng: &mut rng,
                lets: Vec::new(),
                scans: &mut scans,
                no_scan: false,
            };
            let mut lets = Vec::new();
            for _ in 0..g.rng.below(3) {
                let dt = if g.rng.chance(20) { Dt::I32 } else { g.float() };
                let e = g.expr(home, dt, depth, false);
                g.lets.push((home, dt));
                lets.push(e);
            }
            let result_dt = if g.rng.chance(15) { Dt::I32 } else { g.float() };
            let mut results = vec![g.expr(home, result_dt, depth, false)];
            if g.rng.chance(25) {
                let second = g.float();
                results.push(g.expr(home, second, depth, false));
            }
            let math = (result_dt.is_float() && g.rng.chance(20)).then(|| {
                *g.rng
                    .pick(&[Math::Sin, Math::Cos, Math::Exp, Math::Atan, Math::Tanh])
            });
            let trim = (
                g.rng.below(2) as i64,
                g.rng.below(2) as i64,
                g.rng.chance(30),
            );
            ops.push(FieldOp {
                home,
                lets,
                results,
                math,
                trim,
            });
        }
        Program {
            seed,
            tag: None,
            ops,
            scans,
        }
    }

    /// The program's name in generated source.
    pub fn name(&self) -> String {
        match self.tag {
            None => format!("fuzz_{:016x}", self.seed),
            Some(t) => format!("fuzz_{:016x}_{t}", self.seed),
        }
    }

    /// Its number of expression nodes, operators and math functions: what minimising lowers.
    pub fn size(&self) -> usize {
        fn nodes(e: &Expr) -> usize {
            1 + children(e).into_iter().map(nodes).sum::<usize>()
        }
        self.ops
            .iter()
            .map(|o| {
                1 + usize::from(o.math.is_some())
                    + o.lets.iter().chain(&o.results).map(nodes).sum::<usize>()
            })
            .sum()
    }

    /// Whether it applies a math function (compared within the stated tolerance).
    pub fn uses_math(&self) -> bool {
        self.ops.iter().any(|o| o.math.is_some())
    }

    /// Every program one step smaller: an operator dropped, a `let` replaced by nothing where
    /// unused, a subexpression replaced by a leaf of its type, a tuple's second value dropped,
    /// the math function dropped. The minimiser keeps the first that still disagrees.
    pub fn shrink_candidates(&self) -> Vec<Program> {
        let mut out = Vec::new();
        if self.ops.len() > 1 {
            for i in 0..self.ops.len() {
                let mut p = self.clone();
                p.ops.remove(i);
                out.push(p);
            }
        }
        for (i, op) in self.ops.iter().enumerate() {
            if op.math.is_some() {
                let mut p = self.clone();
                p.ops[i].math = None;
                out.push(p);
            }
            if op.results.len() > 1 {
                let mut p = self.clone();
                p.ops[i].results.pop();
                out.push(p);
            }
            // Exprs of the op, addressed as (0 = lets / 1 = results, index).
            let exprs: Vec<(usize, usize, &Expr)> = op
                .lets
                .iter()
                .enumerate()
                .map(|(j, e)| (0, j, e))
                .chain(op.results.iter().enumerate().map(|(j, e)| (1, j, e)))
                .collect();
            for (which, j, e) in exprs {
                for path in subtree_paths(e) {
                    let sub = at_path(e, &path);
                    if matches!(sub.kind, Kind::Input(0)) {
                        continue;
                    }
                    let leaf = Expr {
                        home: sub.home,
                        dt: sub.dt,
                        kind: if sub.dt == Dt::I64 || sub.dt == Dt::Bool {
                            continue;
                        } else {
                            Kind::Input(0)
                        },
                    };
                    let mut p = self.clone();
                    let target = if which == 0 {
                        &mut p.ops[i].lets[j]
                    } else {
                        &mut p.ops[i].results[j]
                    };
                    *at_path_mut(target, &path) = leaf;
                    out.push(p);
                    // A child in place of its parent keeps more of the structure.
                    for child in children(sub) {
                        if child.home == sub.home && child.dt == sub.dt {
                            let mut p = self.clone();
                            let target = if which == 0 {
                                &mut p.ops[i].lets[j]
                            } else {
                                &mut p.ops[i].results[j]
                            };
                            *at_path_mut(target, &path) = child.clone();
                            out.push(p);
                        }
                    }
                }
            }
        }
        out
    }

    /// The program as a module: its scan operators, field operators and `#[program]`, and a
    /// `CASE` entry for the harness.
    pub fn source(&self) -> String {
        let name = self.name();
        let mut s = String::new();
        let _ = writeln!(
            s,
            "#[allow(unused, clippy::all)]\npub mod {name} {{\n    use super::*;\n"
        );
        for (n, scan) in self.scans.iter().enumerate() {
            let params: Vec<String> = (0..scan.args).map(|a| format!("x{a}: f64")).collect();
            let _ = writeln!(
                s,
                "    #[scan_operator(axis = K, forward = {}, init = {:?})]\n    pub fn scan{n}(carry: f64, {}) -> f64 {{\n        {}\n    }}\n",
                scan.forward,
                scan.init,
                params.join(", "),
                scan.body
            );
        }
        let mut program_params: BTreeSet<(String, String)> = BTreeSet::new();
        let mut outputs = Vec::new();
        let mut writes = Vec::new();
        for (n, op) in self.ops.iter().enumerate() {
            let mut used = BTreeSet::new();
            let mut reach = Reach::default();
            let lets: Vec<(String, Reach)> = op
                .lets
                .iter()
                .map(|e| {
                    let (text, r) = render(e, &mut used, &[]);
                    (text, r)
                })
                .collect();
            let let_reach: Vec<Reach> = lets.iter().map(|l| l.1).collect();
            let mut let_text = String::new();
            for (v, (text, _)) in lets.iter().enumerate() {
                let _ = writeln!(let_text, "        let t{v} = {text};");
            }
            // Each let's reach counts where it is read; counted for every let, to be simple.
            for r in &let_reach {
                reach = reach.union(*r);
            }
            let mut values = Vec::new();
            let mut types = Vec::new();
            for (r, e) in op.results.iter().enumerate() {
                let (mut text, rr) = render(e, &mut used, &let_reach);
                reach = reach.union(rr);
                if r == 0 {
                    if let Some(m) = op.math {
                        text = format!("({text}).{}()", m.name());
                    }
                }
                values.push(text);
                types.push(format!("Field<{}, {}>", op.home.dims(), e.dt.name()));
            }
            let params: Vec<String> = used.iter().map(|(n, t)| format!("{n}: {t}")).collect();
            let args: Vec<String> = used.iter().map(|(n, _)| n.clone()).collect();
            for (n, t) in &used {
                program_params.insert((n.clone(), t.clone()));
            }
            let (ret, value) = if values.len() == 1 {
                (types[0].clone(), values[0].clone())
            } else {
                (
                    format!("({})", types.join(", ")),
                    format!("({})", values.join(", ")),
                )
            };
            let _ = writeln!(
                s,
                "    #[field_operator]\n    pub fn op{n}({}) -> {ret} {{\n{let_text}        {value}\n    }}\n",
                params.join(", ")
            );
            let outs: Vec<String> = (0..op.results.len())
                .map(|r| format!("out{n}_{r}"))
                .collect();
            for (r, e) in op.results.iter().enumerate() {
                outputs.push(format!(
                    "{}: &mut Field<{}, {}>",
                    outs[r],
                    op.home.dims(),
                    e.dt.name()
                ));
            }
            let target = if outs.len() == 1 {
                outs[0].clone()
            } else {
                format!("({})", outs.join(", "))
            };
            writes.push(format!(
                "        op{n}({}).write_to({target}, {});",
                args.join(", "),
                domain(op, reach)
            ));
        }
        let mut all_params: Vec<String> = program_params
            .iter()
            .map(|(n, t)| {
                if t.starts_with("Field") {
                    format!("{n}: &{t}")
                } else {
                    format!("{n}: {t}")
                }
            })
            .collect();
        all_params.extend(outputs);
        let _ = writeln!(
            s,
            "    #[program]\n    pub fn {name}({}) {{\n{}\n    }}\n}}\n",
            all_params.join(", "),
            writes.join("\n")
        );
        s
    }

    /// The harness's entry of this program (in the generated file's `CASES`).
    pub fn case_entry(&self) -> String {
        let name = self.name();
        format!(
            "    Case {{ name: \"{name}\", seed: {seed}, math: {math}, compile: |o| Ok(Box::new({name}::{name}::compile(o)?)) }},\n",
            seed = self.seed,
            math = self.uses_math(),
        )
    }
}

/// The domain of an operator's write: the levels (and Cartesian points) whose reads stay
/// inside the fields, trimmed further as the operator says.
fn domain(op: &FieldOp, reach: Reach) -> String {
    let (bottom, top, trim_h) = op.trim;
    let (lo, hi) = ((-reach.k.0).max(0), mesh::NK - reach.k.1.max(0));
    let (k0, k1) = if lo + bottom < hi - top {
        (lo + bottom, hi - top)
    } else if lo < hi {
        // The trim leaves no level: the first level whose reads stay inside.
        (lo, lo + 1)
    } else {
        // Reads reach further than the levels there are (dynamic shifts of dynamic shifts
        // reach ±4 of 7 levels; seed 20260143 wrote `K: 4..5` reading `K + 3` through two):
        // no level, as `inside` does for the Cartesian dimensions.
        let none = lo.min(mesh::NK);
        (none, none)
    };
    let k = format!("K: {k0}..{k1}");
    let t = i64::from(trim_h);
    match op.home {
        Home::Ij => {
            let (i0, i1) = inside(reach.i, mesh::NI, t);
            let (j0, j1) = inside(reach.j, mesh::NJ, 0);
            format!("domain![I: {i0}..{i1}, J: {j0}..{j1}, {k}]")
        }
        home => {
            let n = mesh::extent(home.horizontal()).unwrap_or(1);
            format!("domain![{}: {t}..{}, {k}]", home.horizontal(), n - t)
        }
    }
}

/// The points `start..end` of a Cartesian dimension of `n` points whose reads, reaching `reach`
/// from each, stay inside it, less `trim` at each end where that leaves any. Where the reach
/// leaves none after trimming (the reach counts every `let`, read or not), the first point that
/// fits, and where no point fits, none (an empty range, which every backend runs as a call
/// that writes nothing): a range forced open past the reach would read outside the fields,
/// which the backends refuse with different messages (seed 30451 wrote `I: 5..6` reading
/// `I + 1` of 6 points; seed 70917 wrote `J: 4..5` reading `J - 4` and `J + 1` of 5).
fn inside(reach: (i64, i64), n: i64, trim: i64) -> (i64, i64) {
    let (lo, hi) = ((-reach.0).max(0), n - reach.1.max(0));
    if lo + trim < hi - trim {
        (lo + trim, hi - trim)
    } else if lo < hi {
        (lo, lo + 1)
    } else {
        let none = lo.min(n);
        (none, none)
    }
}

/// Renders `e`, collecting the parameters it reads into `used`; returns its text and reach.
fn render(e: &Expr, used: &mut BTreeSet<(String, String)>, lets: &[Reach]) -> (String, Reach) {
    let r = |x: &Expr, used: &mut BTreeSet<(String, String)>| render(x, used, lets);
    match &e.kind {
        Kind::Input(n) => {
            let name = format!("{}_{}_{n}", e.home.prefix(), e.dt.name());
            used.insert((
                name.clone(),
                format!("Field<{}, {}>", e.home.dims(), e.dt.name()),
            ));
            (name, Reach::default())
        }
        Kind::Var(v) => (format!("t{v}"), lets.get(*v).copied().unwrap_or_default()),
        Kind::Bin(op, a, b) => {
            let (a, ra) = r(a, used);
            let (b, rb) = r(b, used);
            (format!("({a} {op} {b})"), ra.union(rb))
        }
        Kind::BinLeaf(op, a, leaf) => {
            let (a, ra) = r(a, used);
            let l = match leaf {
                Leaf::Scalar(n) => {
                    let name = format!("s_{}_{n}", e.dt.name());
                    used.insert((name.clone(), e.dt.name().into()));
                    name
                }
                Leaf::Float(x) => format!("{x:?}"),
                Leaf::Int(i) => format!("{i}"),
                Leaf::KField => {
                    let name = format!("k_{}", e.dt.name());
                    used.insert((name.clone(), format!("Field<K, {}>", e.dt.name())));
                    name
                }
            };
            (format!("({a} {op} {l})"), ra)
        }
        Kind::Neg(a) => {
            let (a, ra) = r(a, used);
            (format!("(-{a})"), ra)
        }
        Kind::Cmp(op, a, b) => {
            let (a, ra) = r(a, used);
            let (b, rb) = r(b, used);
            (format!("({a} {op} {b})"), ra.union(rb))
        }
        Kind::Select(c, a, b) => {
            let (c, rc) = r(c, used);
            let (a, ra) = r(a, used);
            let (b, rb) = r(b, used);
            (format!("select({c}, {a}, {b})"), rc.union(ra).union(rb))
        }
        Kind::Slot(o, slot, a) => {
            let (a, ra) = r(a, used);
            (
                format!("{a}.at({}[{slot}])", o.name()),
                Reach {
                    k: ra.k,
                    ..Reach::default()
                },
            )
        }
        Kind::Reduce(op, o, a, weighted) => {
            let (a, ra) = r(a, used);
            let f = match op {
                Reduce::Sum => "neighbor_sum",
                Reduce::Min => "min_over",
                Reduce::Max => "max_over",
            };
            let mut gathered = format!("{a}.at({})", o.name());
            if *weighted {
                let w = format!("w_{}_{}", o.name().to_lowercase(), e.dt.name());
                used.insert((
                    w.clone(),
                    format!(
                        "Field<({}, {}), {}>",
                        o.from().horizontal(),
                        o.name(),
                        e.dt.name()
                    ),
                ));
                gathered = format!("({gathered} * {w})");
            }
            (
                format!("{f}({gathered}, {})", o.name()),
                Reach {
                    k: ra.k,
                    ..Reach::default()
                },
            )
        }
        Kind::Shift(axis, by, a) => {
            let (a, mut ra) = r(a, used);
            let sign = if *by < 0 { '-' } else { '+' };
            let range = match axis {
                'K' => &mut ra.k,
                'I' => &mut ra.i,
                _ => &mut ra.j,
            };
            *range = (range.0 + by, range.1 + by);
            (format!("{a}.at({axis} {sign} {})", by.abs()), ra)
        }
        Kind::DynamicShift(level, a) => {
            let (level, rl) = r(level, used);
            let (a, mut ra) = r(a, used);
            let reach = DYNAMIC_SHIFT_MODULUS - 1;
            ra.k = (ra.k.0 - reach, ra.k.1 + reach);
            (
                format!("{a}.at(K + ({level} % {DYNAMIC_SHIFT_MODULUS}))"),
                ra.union(rl),
            )
        }
        Kind::Concat(level, a, b) => {
            let (a, ra) = r(a, used);
            let (b, rb) = r(b, used);
            (format!("concat_where(K < {level}, {a}, {b})"), ra.union(rb))
        }
        Kind::Cast(a) => {
            let (a, ra) = r(a, used);
            (format!("({a} as {})", e.dt.name()), ra)
        }
        Kind::Sqrt(a) => {
            let (a, ra) = r(a, used);
            (format!("{a}.abs().sqrt()"), ra)
        }
        Kind::Scan(n, args) => {
            let mut reach = Reach::default();
            let texts: Vec<String> = args
                .iter()
                .map(|a| {
                    let (t, ra) = r(a, used);
                    reach = reach.union(ra);
                    t
                })
                .collect();
            (format!("scan{n}({})", texts.join(", ")), reach)
        }
    }
}

fn children(e: &Expr) -> Vec<&Expr> {
    match &e.kind {
        Kind::Input(_) | Kind::Var(_) => vec![],
        Kind::Bin(_, a, b)
        | Kind::Cmp(_, a, b)
        | Kind::Concat(_, a, b)
        | Kind::DynamicShift(a, b) => vec![a, b],
        Kind::BinLeaf(_, a, _)
        | Kind::Neg(a)
        | Kind::Slot(_, _, a)
        | Kind::Reduce(_, _, a, _)
        | Kind::Shift(_, _, a)
        | Kind::Cast(a)
        | Kind::Sqrt(a) => vec![a],
        Kind::Select(c, a, b) => vec![c, a, b],
        Kind::Scan(_, args) => args.iter().collect(),
    }
}

fn children_mut(e: &mut Expr) -> Vec<&mut Expr> {
    match &mut e.kind {
        Kind::Input(_) | Kind::Var(_) => vec![],
        Kind::Bin(_, a, b)
        | Kind::Cmp(_, a, b)
        | Kind::Concat(_, a, b)
        | Kind::DynamicShift(a, b) => vec![a, b],
        Kind::BinLeaf(_, a, _)
        | Kind::Neg(a)
        | Kind::Slot(_, _, a)
        | Kind::Reduce(_, _, a, _)
        | Kind::Shift(_, _, a)
        | Kind::Cast(a)
        | Kind::Sqrt(a) => vec![a],
        Kind::Select(c, a, b) => vec![c, a, b],
        Kind::Scan(_, args) => args.iter_mut().collect(),
    }
}

/// Paths (child indices from the root) of every subtree, the root first.
fn subtree_paths(e: &Expr) -> Vec<Vec<usize>> {
    let mut out = vec![vec![]];
    for (i, c) in children(e).into_iter().enumerate() {
        for mut p in subtree_paths(c) {
            p.insert(0, i);
            out.push(p);
        }
    }
    out
}

fn at_path<'a>(e: &'a Expr, path: &[usize]) -> &'a Expr {
    match path.split_first() {
        None => e,
        Some((&i, rest)) => at_path(children(e)[i], rest),
    }
}

fn at_path_mut<'a>(e: &'a mut Expr, path: &[usize]) -> &'a mut Expr {
    match path.split_first() {
        None => e,
        Some((&i, rest)) => {
            let child = children_mut(e).into_iter().nth(i);
            match child {
                Some(c) => at_path_mut(c, rest),
                None => unreachable!("paths come from subtree_paths of the same tree"),
            }
        }
    }
}

/// The dimensions and offsets every generated file declares, and the binding of the harness's
/// tables to its offsets.
pub fn preamble() -> String {
    let mut s = String::from(
        "gt4rs::dimensions! {\n    pub Cell, Edge, Vertex: horizontal;\n    pub I, J: horizontal;\n    pub K: vertical;\n}\n\ngt4rs::offsets! {\n",
    );
    for (name, from, to, count, skips) in mesh::OFFSETS {
        let skip_values = if skips { " with skip_values" } else { "" };
        let _ = writeln!(s, "    pub {name}: {from} => {to} [{count}]{skip_values};");
    }
    s.push_str(
        "}\n\n/// The harness's tables bound to this file's offsets.\npub fn connectivities(tables: &gt4rs_tests::fuzz::Tables) -> Result<Connectivities, Error> {\n    Ok(Connectivities::new()\n",
    );
    for (name, ..) in mesh::OFFSETS {
        let _ = writeln!(s, "        .with(&{{\n            let (table, points) = tables.table(\"{name}\")?;\n            Connectivity::<{name}>::new(table, points)?\n        }})");
    }
    s.push_str("    )\n}\n");
    s
}

/// A whole file of programs: the seeds `seeds`, each a module, and `CASES` listing them.
pub fn file_source(seeds: impl IntoIterator<Item = u64>, header: &str) -> String {
    programs_source(seeds.into_iter().map(Program::generate), header)
}

/// A whole file of the given programs.
pub fn programs_source(programs: impl IntoIterator<Item = Program>, header: &str) -> String {
    let mut s = String::from(header);
    let mut cases = String::new();
    for p in programs {
        s.push('\n');
        s.push_str(&p.source());
        cases.push_str(&p.case_entry());
    }
    let _ = write!(s, "\npub const CASES: &[Case] = &[\n{cases}];\n");
    s
}

/// The seeds of the programs the test suite runs: file `part` of [`CI_PARTS`].
pub fn ci_seeds(part: u64) -> impl Iterator<Item = u64> {
    (0..CI_PER_PART).map(move |i| CI_SEED_BASE + part * CI_PER_PART + i)
}

pub const CI_SEED_BASE: u64 = 20_260_000;
pub const CI_PARTS: u64 = 4;
pub const CI_PER_PART: u64 = 80;

/// The text of `tests/tests/fuzz/generated_{part}.rs`.
pub fn ci_source(part: u64) -> String {
    file_source(
        ci_seeds(part),
        "// @generated by gt4rs_fuzz::ci_source (GT4RS_BLESS=1 cargo test --release -p gt4rs-fuzz --lib); do not edit.\n",
    )
}

/// The text of `tests/tests/fuzz/preamble.rs`.
pub fn ci_preamble() -> String {
    format!(
        "// @generated by gt4rs_fuzz::preamble (GT4RS_BLESS=1 cargo test --release -p gt4rs-fuzz --lib); do not edit.\n\n{}",
        preamble()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(path: &str, want: String) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
        if std::env::var_os("GT4RS_BLESS").is_some() {
            std::fs::write(&path, &want).expect("the generated file is writable");
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "{} is stale: rerun with GT4RS_BLESS=1",
            path.display()
        );
    }

    #[test]
    fn the_fuzz_test_runs_what_this_crate_generates() {
        check("../tests/tests/fuzz/preamble.rs", ci_preamble());
        for part in 0..CI_PARTS {
            check(
                &format!("../tests/tests/fuzz/generated_{part}.rs"),
                ci_source(part),
            );
        }
    }

    #[test]
    fn a_seed_gives_one_program() {
        assert_eq!(Program::generate(5), Program::generate(5));
        assert_ne!(Program::generate(5), Program::generate(6));
    }

    /// Seeds 30451 and 70917: a written range never reaches past what its reads allow.
    #[test]
    fn a_written_range_keeps_every_read_inside_its_field() {
        // Reads from `J - 4` to `J + 1` of 5 points: no point fits, so none is written.
        assert_eq!(inside((-4, 1), 5, 0), (4, 4));
        // Reads at `I + 1` of 6 points, trimmed by 2 at each end: the first point that fits.
        assert_eq!(inside((0, 1), 6, 3), (0, 1));
        assert_eq!(inside((-1, 1), 8, 1), (2, 6));
        // Reads further left than the dimension is long.
        assert_eq!(inside((-9, 0), 5, 0), (5, 5));
    }

    #[test]
    fn a_written_level_range_keeps_every_read_inside_its_field() {
        let op = |trim| FieldOp {
            home: Home::Vertex,
            lets: Vec::new(),
            results: Vec::new(),
            math: None,
            trim,
        };
        let reach = |k| Reach {
            k,
            ..Reach::default()
        };
        // Two dynamic shifts, one inside the other, reach ±4 of 7 levels: none is written.
        assert!(domain(&op((0, 0, false)), reach((-4, 4))).contains("K: 4..4"));
        // The trim leaves none: the first level that fits.
        assert!(domain(&op((2, 2, false)), reach((-2, 2))).contains("K: 2..3"));
        assert!(domain(&op((1, 0, false)), reach((-1, 2))).contains("K: 2..5"));
    }

    #[test]
    fn shrinking_gives_smaller_programs() {
        let p = Program::generate(11);
        let size = Program::size;
        assert!(p.shrink_candidates().iter().all(|c| size(c) <= size(&p)));
    }
}
