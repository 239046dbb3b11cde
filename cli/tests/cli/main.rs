//! The `demokit` command-line tool as a user runs it: every command on the fixtures and
//! the real recordings, output safety, crash recovery, export and the Python package.
//!
//! One test binary of modules (one per concern), sharing the helpers in `tests/common`.

#[path = "../../../tests/common/mod.rs"]
mod common;

mod run;

mod attack;
mod browser;
mod commands;
mod compressed;
mod confinement;
mod edit;
mod edit_many;
mod endless;
mod exit_status;
mod export;
mod export_partitions;
mod game;
mod game_model;
mod hostile_text;
mod interrupted;
mod output_safety;
mod python_package;
mod reads_well;
mod render;
mod report;
mod selection;
mod source;
mod teehistorian;
mod teehistorian_crash;
mod teehistorian_scrub;
mod teehistorian_trim;
mod teehistorian_unfinished;
mod twdemo_crash;
mod twdemo_markers;
mod twdemo_scrub;
mod vocabulary;
