//! Emitters: Rust tokens generated from the checked IR. An operator's or program's expansion
//! includes its definition macro (`crate::definitions`), so that later items can see it;
//! nothing here depends on the driver or on `frontend`.

pub mod bind;
pub mod c_abi;
pub mod cpu;
pub mod cuda;
pub mod operator;
pub mod program;
pub mod program_doc;
pub mod stage_walk;
