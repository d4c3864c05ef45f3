//! ICON neighbour tables by offset name, for tools that read tables from files.

use gt4rs::{Connectivities, Connectivity, Error};
use ndarray::Array2;

use crate::icon::dims::*;

/// Validates `table` as the connectivity of the ICON offset called `offset` (upper case, e.g.
/// `E2C2V`) whose entries index `target_size` points, and adds it to `into`.
pub fn insert_by_name(
    into: &mut Connectivities,
    offset: &str,
    table: Array2<i32>,
    target_size: usize,
) -> Result<(), Error> {
    macro_rules! by_name {
        ($($o:ident),*) => {
            match offset {
                $(stringify!($o) => {
                    into.insert(&Connectivity::<$o>::new(table, target_size)?);
                })*
                other => {
                    return Err(Error::Connectivity {
                        offset: other.to_string(),
                        message: "not an ICON offset".to_string(),
                    })
                }
            }
        };
    }
    by_name!(
        C2E, C2V, E2V, E2C, C2E2C, C2E2CO, V2E, V2C, V2E2V, E2C2V, E2C2E, E2C2EO, C2E2C2E,
        C2E2C2E2C
    );
    Ok(())
}

/// The dimension an ICON offset's entries index (`Cell`, `Edge` or `Vertex`).
pub fn target_dim(offset: &str) -> Option<&'static str> {
    let to = offset.rsplit('2').next()?;
    Some(match to.trim_end_matches('O') {
        "C" => "Cell",
        "E" => "Edge",
        "V" => "Vertex",
        _ => return None,
    })
}
