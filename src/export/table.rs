//! The `tables!` macro: each table declared once, as a row struct whose fields name the
//! columns; from that follow the Arrow schema, a column builder and the record batch.

/// Declares tables. For each: a row struct (`$row`, borrowing its strings) and a column
/// set (`$columns`) that collects rows into Arrow arrays.
///
/// Column kinds: `i32`, `i64`, `u64`, `bool`, `str` and their optional forms
/// `(opt i32)`, `(opt i64)`, `(opt u64)`, `(opt str)`, which are nullable columns.
macro_rules! tables {
    ($(
        $(#[$doc:meta])*
        $table:ident $name:literal, $row:ident, $columns:ident {
            $( $(#[$fdoc:meta])* $field:ident : $kind:tt ),* $(,)?
        }
    )*) => {
        /// A table of the export.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize))]
        #[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
        pub enum Table {
            $( $(#[$doc])* $table, )*
        }

        impl Table {
            /// Every table, in the order they are written.
            pub const ALL: &'static [Table] = &[$(Table::$table),*];

            /// The table's name: its directory in a dataset.
            pub const fn name(self) -> &'static str {
                match self { $( Table::$table => $name, )* }
            }

            /// The table's Arrow schema (schema version [`SCHEMA_VERSION`](crate::export::SCHEMA_VERSION)).
            pub fn schema(self) -> arrow_schema::SchemaRef {
                match self { $( Table::$table => $columns::schema(), )* }
            }
        }

        $(
            $(#[$doc])*
            ///
            /// One row; each field is a column of the same name.
            #[derive(Debug, Clone, PartialEq)]
            #[cfg_attr(feature = "serde", derive(serde::Serialize))]
            pub struct $row<'a> {
                $( $(#[$fdoc])* pub $field: $crate::export::table::row_type!($kind), )*
            }

            /// Rows of the table collected column by column.
            #[derive(Debug, Default)]
            pub struct $columns {
                $( $field: $crate::export::table::builder_type!($kind), )*
                rows: usize,
            }

            impl $columns {
                /// The table's Arrow schema.
                pub fn schema() -> arrow_schema::SchemaRef {
                    std::sync::Arc::new(arrow_schema::Schema::new(vec![
                        $( $crate::export::table::column_field!(stringify!($field), $kind), )*
                    ]))
                }

                /// Appends a row.
                pub fn push(&mut self, row: &$row<'_>) {
                    $( $crate::export::table::append!(self.$field, row.$field, $kind); )*
                    self.rows += 1;
                }

                /// Rows collected since the last [`finish`](Self::finish).
                pub fn len(&self) -> usize {
                    self.rows
                }

                /// Whether no row is collected.
                pub fn is_empty(&self) -> bool {
                    self.rows == 0
                }

                /// The rows collected as a record batch; the builder starts empty again, with
                /// room for as many rows (a file's batches are mostly full ones).
                pub fn finish(&mut self) -> arrow_array::RecordBatch {
                    let rows = std::mem::take(&mut self.rows);
                    let columns: Vec<arrow_array::ArrayRef> = vec![
                        $( std::sync::Arc::new(self.$field.finish()), )*
                    ];
                    $( self.$field = $crate::export::table::new_builder!($kind, rows); )*
                    arrow_array::RecordBatch::try_new(Self::schema(), columns)
                        .expect("the columns follow the schema they are declared with")
                }
            }
        )*
    };
}

macro_rules! row_type {
    (i32) => { i32 };
    (i64) => { i64 };
    (u64) => { u64 };
    (bool) => { bool };
    (str) => { &'a str };
    ((opt i32)) => { Option<i32> };
    ((opt i64)) => { Option<i64> };
    ((opt u64)) => { Option<u64> };
    ((opt bool)) => { Option<bool> };
    ((opt str)) => { Option<&'a str> };
}

macro_rules! builder_type {
    (i32) => {
        arrow_array::builder::Int32Builder
    };
    (i64) => {
        arrow_array::builder::Int64Builder
    };
    (u64) => {
        arrow_array::builder::UInt64Builder
    };
    (bool) => {
        arrow_array::builder::BooleanBuilder
    };
    (str) => {
        arrow_array::builder::StringBuilder
    };
    ((opt $k:tt)) => {
        $crate::export::table::builder_type!($k)
    };
}

macro_rules! new_builder {
    (str, $rows:expr) => {
        arrow_array::builder::StringBuilder::with_capacity($rows, 16 * $rows)
    };
    ((opt $k:tt), $rows:expr) => {
        $crate::export::table::new_builder!($k, $rows)
    };
    ($k:tt, $rows:expr) => {
        <$crate::export::table::builder_type!($k)>::with_capacity($rows)
    };
}

macro_rules! column_field {
    ($name:expr, (opt $k:tt)) => {
        arrow_schema::Field::new($name, $crate::export::table::data_type!($k), true)
    };
    ($name:expr, $k:tt) => {
        arrow_schema::Field::new($name, $crate::export::table::data_type!($k), false)
    };
}

macro_rules! data_type {
    (i32) => {
        arrow_schema::DataType::Int32
    };
    (i64) => {
        arrow_schema::DataType::Int64
    };
    (u64) => {
        arrow_schema::DataType::UInt64
    };
    (bool) => {
        arrow_schema::DataType::Boolean
    };
    (str) => {
        arrow_schema::DataType::Utf8
    };
}

macro_rules! append {
    ($builder:expr, $value:expr, (opt $k:tt)) => {
        $builder.append_option($value)
    };
    ($builder:expr, $value:expr, $k:tt) => {
        $builder.append_value($value)
    };
}

pub(crate) use {append, builder_type, column_field, data_type, new_builder, row_type, tables};
