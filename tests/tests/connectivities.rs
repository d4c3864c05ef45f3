//! Neighbour tables and their declarations: offsets named alike in different modules bind
//! their own tables.

use gt4rs::prelude::*;
use gt4rs_tests::{
    at, expect_error, expect_field, for_each_backend, poisoned, random_field, rng, Cell, Edge,
};
use rand::RngExt;

/// A coarse and a fine grid: each module declares its own `E2C`, with its own table.
mod coarse {
    use gt4rs::prelude::*;
    use gt4rs_tests::{Cell, Edge};

    gt4rs::offsets! { pub E2C: Edge => Cell [2]; }

    #[field_operator]
    fn weighted_cells(cell: Field<Cell, f64>) -> Field<Edge, f64> {
        cell.at(E2C[0]) - 2.0 * cell.at(E2C[1])
    }

    #[program]
    pub fn edge_from_cells(cell: &Field<Cell, f64>, out: &mut Field<Edge, f64>) {
        weighted_cells(cell).write_to(out);
    }
}

mod fine {
    use gt4rs::prelude::*;
    use gt4rs_tests::{Cell, Edge};

    gt4rs::offsets! { pub E2C: Edge => Cell [2]; }

    #[field_operator]
    fn summed_cells(cell: Field<Cell, f64>) -> Field<Edge, f64> {
        neighbor_sum(cell.at(E2C), E2C)
    }

    #[program]
    pub fn edge_from_cells(cell: &Field<Cell, f64>, out: &mut Field<Edge, f64>) {
        summed_cells(cell).write_to(out);
    }
}

const N_CELLS: usize = 17;
const N_EDGES: usize = 29;

/// Two different tables of one shape: binding one for the other gives other numbers.
fn tables() -> (Vec<i32>, Vec<i32>) {
    let coarse = (0..N_EDGES * 2)
        .map(|i| ((i * 5 + 3) % N_CELLS) as i32)
        .collect();
    let fine = (0..N_EDGES * 2)
        .map(|i| ((i * 11 + i / 2 + 1) % N_CELLS) as i32)
        .collect();
    (coarse, fine)
}

#[test]
fn offsets_named_alike_in_two_modules_bind_their_own_tables() {
    let (coarse_table, fine_table) = tables();
    let coarse_conn = Connectivity::<coarse::E2C>::from_vec(coarse_table.clone(), N_EDGES, N_CELLS)
        .expect("valid");
    let fine_conn =
        Connectivity::<fine::E2C>::from_vec(fine_table.clone(), N_EDGES, N_CELLS).expect("valid");
    let connectivities = Connectivities::new().with(&coarse_conn).with(&fine_conn);
    assert_eq!(connectivities.names().count(), 2, "both tables are held");
    let mut r = rng(77);
    let cell: Field<Cell, f64> = random_field(&mut r, &[0..N_CELLS as i64]);
    let domain = [0..N_EDGES as i64];
    for_each_backend(|backend| {
        let options = backend.options_with(connectivities.clone());
        let mut out: Field<Edge, f64> = poisoned(&domain);
        coarse::edge_from_cells::compile(&options)?.call(coarse::edge_from_cells::Args {
            cell: &cell,
            out: &mut out,
        })?;
        expect_field("coarse E2C", &out, &domain, |p| {
            let row = p[0] as usize * 2;
            at(&cell, &[coarse_table[row] as i64])
                - 2.0 * at(&cell, &[coarse_table[row + 1] as i64])
        });
        let mut out: Field<Edge, f64> = poisoned(&domain);
        fine::edge_from_cells::compile(&options)?.call(fine::edge_from_cells::Args {
            cell: &cell,
            out: &mut out,
        })?;
        expect_field("fine E2C", &out, &domain, |p| {
            let row = p[0] as usize * 2;
            at(&cell, &[fine_table[row] as i64]) + at(&cell, &[fine_table[row + 1] as i64])
        });
        Ok(())
    });
}

#[test]
fn a_table_of_another_offset_with_the_same_name_is_not_bound() {
    let (coarse_table, _) = tables();
    let coarse_conn =
        Connectivity::<coarse::E2C>::from_vec(coarse_table, N_EDGES, N_CELLS).expect("valid");
    let options = Options::new(Backend::Embedded)
        .with_connectivities(Connectivities::new().with(&coarse_conn));
    expect_error(
        fine::edge_from_cells::compile(&options),
        &[
            "E2C",
            "only for other offsets of that name",
            "connectivities.rs",
        ],
    );
}

#[test]
fn a_flat_table_of_another_width_is_not_reshaped() {
    // Ten rows of a 4-wide table would read as twenty rows of a 2-wide one.
    let mut r = rng(78);
    let four_wide: Vec<i32> = (0..10 * 4)
        .map(|_| r.random_range(0..N_CELLS as i32))
        .collect();
    expect_error(
        Connectivity::<coarse::E2C>::from_vec(four_wide.clone(), 10, N_CELLS),
        &[
            "E2C",
            "40 entries",
            "10 rows of 2 neighbours per Edge need 20",
        ],
    );
    // The same entries as what they are, twenty rows of two, are a table.
    let table = Connectivity::<coarse::E2C>::from_vec(four_wide, 20, N_CELLS).expect("valid");
    assert_eq!((table.rows(), table.count()), (20, 2));
}
