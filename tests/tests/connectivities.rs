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

/// A regional grid's edges: boundary edges miss their outer cell, and the offset says so.
mod boundary {
    use gt4rs::prelude::*;
    use gt4rs_tests::{Cell, Edge};

    gt4rs::offsets! { pub E2C: Edge => Cell [2] with skip_values; }

    #[field_operator]
    fn summed_cells(cell: Field<Cell, f64>) -> Field<Edge, f64> {
        neighbor_sum(cell.at(E2C), E2C)
    }

    #[program]
    pub fn edge_from_cells(cell: &Field<Cell, f64>, out: &mut Field<Edge, f64>) {
        summed_cells(cell).write_to(out);
    }
}

/// `tables().1` with -1 in some slots (both slots of one row).
fn table_with_skip_values() -> Vec<i32> {
    let mut table = tables().1;
    for (i, entry) in table.iter_mut().enumerate() {
        if i % 7 == 3 || i == 2 * 11 || i == 2 * 11 + 1 {
            *entry = -1;
        }
    }
    table
}

#[test]
fn a_skip_value_in_a_table_of_an_offset_declared_without_them_is_an_error() {
    let table = table_with_skip_values();
    let first = table.iter().position(|&v| v == -1).expect("a -1");
    expect_error(
        Connectivity::<coarse::E2C>::from_vec(table, N_EDGES, N_CELLS),
        &[
            "E2C",
            &format!("row {}, slot {}", first / 2, first % 2),
            "without skip values",
            "with skip_values",
        ],
    );
}

#[test]
fn reductions_over_an_offset_declared_with_skip_values_skip_them() {
    let table = table_with_skip_values();
    let conn =
        Connectivity::<boundary::E2C>::from_vec(table.clone(), N_EDGES, N_CELLS).expect("valid");
    let mut r = rng(79);
    let cell: Field<Cell, f64> = random_field(&mut r, &[0..N_CELLS as i64]);
    let domain = [0..N_EDGES as i64];
    for_each_backend(|backend| {
        let options = backend.options_with(Connectivities::new().with(&conn));
        let mut out: Field<Edge, f64> = poisoned(&domain);
        boundary::edge_from_cells::compile(&options)?.call(boundary::edge_from_cells::Args {
            cell: &cell,
            out: &mut out,
        })?;
        expect_field("E2C with skip values", &out, &domain, |p| {
            let row = p[0] as usize * 2;
            table[row..row + 2]
                .iter()
                .filter(|&&c| c >= 0)
                .map(|&c| at(&cell, &[c as i64]))
                .sum()
        });
        Ok(())
    });
}
