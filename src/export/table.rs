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
                        $( $crate::export::table::finish!(self.$field, $kind), )*
                    ];
                    $( $crate::export::table::renew!(self.$field, $kind, rows); )*
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

/// A column's builder. Required numbers and flags gather in a plain `Vec`, which becomes
/// the array's buffer without a copy: an Arrow builder's per-value null bookkeeping and
/// capacity checks were a fifth of a teehistorian export in the profile.
macro_rules! builder_type {
    (i32) => {
        Vec<i32>
    };
    (i64) => {
        Vec<i64>
    };
    (u64) => {
        Vec<u64>
    };
    (bool) => {
        Vec<bool>
    };
    (str) => {
        arrow_array::builder::StringBuilder
    };
    ((opt $k:tt)) => {
        $crate::export::table::Nullable<$crate::export::table::arrow_builder_type!($k)>
    };
}

/// The Arrow builder of a nullable column's values.
macro_rules! arrow_builder_type {
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
}

/// Makes a finished column's builder ready for the next batch, with room for `$rows` rows
/// (a file's batches are mostly full ones).
macro_rules! renew {
    // Room for paths of up to 64 bytes in every row: growing a batch's string buffer
    // copied it (a teehistorian file's `ticks` repeats its path in a few million rows).
    // Pages not written to cost no memory.
    ($builder:expr, str, $rows:expr) => {
        $builder = arrow_array::builder::StringBuilder::with_capacity($rows, 64 * $rows)
    };
    // Left as finishing left it: grown as needed, since an optional column may well stay
    // empty, and keeping its all-null array.
    ($builder:expr, (opt $k:tt), $rows:expr) => {};
    ($builder:expr, $k:tt, $rows:expr) => {
        $builder = <$crate::export::table::builder_type!($k)>::with_capacity($rows)
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

/// The array type of a required column.
macro_rules! array_type {
    (i32) => {
        arrow_array::Int32Array
    };
    (i64) => {
        arrow_array::Int64Array
    };
    (u64) => {
        arrow_array::UInt64Array
    };
    (bool) => {
        arrow_array::BooleanArray
    };
}

macro_rules! append {
    ($builder:expr, $value:expr, (opt $k:tt)) => {
        match $value {
            // Nulls before the first value are only counted.
            None if arrow_array::builder::ArrayBuilder::is_empty(&$builder.values) => {
                $builder.leading_nulls += 1
            }
            None => $builder.values.append_null(),
            Some(value) => {
                if $builder.leading_nulls > 0 {
                    $builder
                        .values
                        .append_nulls(std::mem::take(&mut $builder.leading_nulls));
                }
                $builder.values.append_value(value)
            }
        }
    };
    ($builder:expr, $value:expr, str) => {
        $builder.append_value($value)
    };
    ($builder:expr, $value:expr, $k:tt) => {
        $builder.push($value)
    };
}

/// The array a column's builder holds, taken out of it.
macro_rules! finish {
    ($builder:expr, (opt $k:tt)) => {
        match std::mem::take(&mut $builder.leading_nulls) {
            0 => std::sync::Arc::new($builder.values.finish()) as arrow_array::ArrayRef,
            nulls => $builder.all_null(&$crate::export::table::data_type!($k), nulls),
        }
    };
    ($builder:expr, str) => {
        std::sync::Arc::new($builder.finish()) as arrow_array::ArrayRef
    };
    ($builder:expr, $k:tt) => {
        std::sync::Arc::new(<$crate::export::table::array_type!($k)>::from(
            std::mem::take(&mut $builder),
        )) as arrow_array::ArrayRef
    };
}

/// The builder of a nullable column. A column that is null in every row (a teehistorian
/// file's velocities in `ticks`, say) is only counted, and becomes an all-null array at
/// the end: appending a null per row showed in the profile.
#[derive(Debug, Default)]
pub(crate) struct Nullable<B> {
    /// The values from the first non-null one on.
    pub(crate) values: B,
    /// The nulls before the first value.
    pub(crate) leading_nulls: usize,
    /// The last all-null array made, whose slices serve later batches: making a new one
    /// zeroes its buffers every time.
    all_null: Option<arrow_array::ArrayRef>,
}

impl<B> Nullable<B> {
    /// An array of `len` nulls of `data_type`.
    pub(crate) fn all_null(
        &mut self,
        data_type: &arrow_schema::DataType,
        len: usize,
    ) -> arrow_array::ArrayRef {
        match &self.all_null {
            Some(nulls) if nulls.len() >= len => nulls.slice(0, len),
            _ => {
                let nulls = arrow_array::new_null_array(data_type, len);
                self.all_null = Some(nulls.clone());
                nulls
            }
        }
    }
}

pub(crate) use {
    append, array_type, arrow_builder_type, builder_type, column_field, data_type, finish, renew,
    row_type, tables,
};
