//! The units of the tables' numbers, by column name: one name means one quantity in every
//! table, so a column's unit follows from its name. Each schema carries them as Arrow
//! field metadata (key `unit`), which Parquet files keep.

/// The metadata key a column's unit is stored under.
pub(crate) const UNIT_KEY: &str = "unit";

/// The unit of a column named `column`, if it is a quantity with one.
pub fn unit(column: &str) -> Option<&'static str> {
    Some(match column {
        // One schema serves every format: the unit says what differs between them.
        "tick" | "first_tick" | "last_tick" | "position_tick" => {
            "server ticks (Teeworlds/DDNet: 50 a second; Source: the demo's own tick rate)"
        }
        "x" | "y" => "world units (Teeworlds/DDNet: 32 to a tile; Source: Hammer units)",
        "vel_x" | "vel_y" => "1/256 world units per tick",
        "target_x" | "target_y" => "world units from the character",
        "time_ms" => "milliseconds",
        "bytes" | "offset" | "len" | "error_offset" => "bytes",
        "modified_ns" => "nanoseconds since the Unix epoch",
        _ => return None,
    })
}

/// `field` with its unit in its metadata, if it has one.
pub(crate) fn with_unit(field: arrow_schema::Field) -> arrow_schema::Field {
    match unit(field.name()) {
        Some(unit) => field.with_metadata([(UNIT_KEY.to_owned(), unit.to_owned())].into()),
        None => field,
    }
}
