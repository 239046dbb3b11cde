//! The `tables!` macro: each table declared once, as a row struct whose fields name the
//! columns; from that follow the Arrow schema, a column builder and the record batch.

/// Declares tables. For each: a row struct (`$row`, borrowing its strings) and a column
/// set (`$columns`) that collects rows into Arrow arrays.
///
/// Column kinds: `i32`, `i64`, `u64`, `bool`, `str` and their optional forms
/// `(opt i32)`, `(opt i64)`, `(opt u64)`, `(opt str)`, which are nullable columns; and
/// `(runs str)`, a string that repeats in long runs (a file's path in each of its rows),
/// dictionary-encoded: Arrow `dictionary<int32, utf8>`, one copy of each run's value per
/// batch; and `(dict str)`, a string of a few values in any order (a player's name in each
/// of its `ticks` rows), dictionary-encoded the same way with one copy of each value per
/// batch.
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
            #[derive(Debug)]
            pub struct $columns {
                $( $field: $crate::export::table::builder_type!($kind), )*
                rows: usize,
            }

            impl Default for $columns {
                fn default() -> Self {
                    $columns {
                        $( $field: $crate::export::table::Empty::empty(), )*
                        rows: 0,
                    }
                }
            }

            impl $columns {
                /// The table's Arrow schema.
                pub fn schema() -> arrow_schema::SchemaRef {
                    std::sync::Arc::new(arrow_schema::Schema::new(vec![
                        $( $crate::export::units::with_unit(
                            $crate::export::table::column_field!(stringify!($field), $kind),
                        ), )*
                    ]))
                }

                /// Appends a row.
                pub fn push(&mut self, row: &$row<'_>) {
                    $( $crate::export::table::append!(self.$field, row.$field, $kind, self.rows); )*
                    self.rows += 1;
                }

                /// Appends `n` rows, the `i`th being `row(i)`, column by column: for rows
                /// made in bulk (a tick's positions), where a column's loop over them beats
                /// a row's trip through every column. `row` is called once per row and
                /// column, so it should only pick values out of something.
                #[inline]
                pub fn push_rows<'a>(&mut self, n: usize, row: impl Fn(usize) -> $row<'a>) {
                    $( $crate::export::table::append_rows!(self.$field, n, |i| row(i).$field, $kind, self.rows); )*
                    self.rows += n;
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
                        $( $crate::export::table::finish!(self.$field, $kind, rows), )*
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
    ((runs str)) => { &'a str };
    ((dict str)) => { &'a str };
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
    ((runs str)) => {
        $crate::export::table::Runs
    };
    ((dict str)) => {
        $crate::export::table::Dict
    };
}

/// The Arrow builder of a nullable column's values.
macro_rules! arrow_builder_type {
    (i32) => {
        $crate::export::table::OptValues<arrow_array::types::Int32Type>
    };
    (i64) => {
        $crate::export::table::OptValues<arrow_array::types::Int64Type>
    };
    (u64) => {
        $crate::export::table::OptValues<arrow_array::types::UInt64Type>
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
    ($builder:expr, (runs str), $rows:expr) => {
        $builder.renew($rows)
    };
    ($builder:expr, (dict str), $rows:expr) => {
        $builder.renew($rows)
    };
    ($builder:expr, $k:tt, $rows:expr) => {
        $builder = <$crate::export::table::builder_type!($k)>::with_capacity($rows)
    };
}

macro_rules! column_field {
    ($name:expr, (runs str)) => {
        arrow_schema::Field::new($name, $crate::export::table::Runs::data_type(), false)
    };
    ($name:expr, (dict str)) => {
        arrow_schema::Field::new($name, $crate::export::table::Runs::data_type(), false)
    };
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

/// Appends a row's value to its column, `$rows` rows being there before it.
macro_rules! append {
    ($builder:expr, $value:expr, (runs str), $rows:expr) => {
        $builder.push($value)
    };
    ($builder:expr, $value:expr, (dict str), $rows:expr) => {
        $builder.push($value)
    };
    ($builder:expr, $value:expr, (opt $k:tt), $rows:expr) => {{
        let values = &mut $builder.values;
        let empty = $crate::export::table::NoValues::no_values(values);
        match $value {
            // The nulls before the first value are the rows before it: nothing to do.
            None if empty => {}
            None => values.append_null(),
            Some(value) => {
                if empty {
                    values.append_nulls($rows);
                }
                values.append_value(value)
            }
        }
    }};
    ($builder:expr, $value:expr, str, $rows:expr) => {
        $builder.append_value($value)
    };
    ($builder:expr, $value:expr, $k:tt, $rows:expr) => {
        $builder.push($value)
    };
}

/// Appends `$n` values, the `i`th `$value(i)`, to a column holding `$rows` rows.
macro_rules! append_rows {
    ($builder:expr, $n:expr, $value:expr, (runs str), $rows:expr) => {
        $builder.push_rows($n, $value)
    };
    ($builder:expr, $n:expr, $value:expr, (dict str), $rows:expr) => {
        $builder.push_rows($n, $value)
    };
    ($builder:expr, $n:expr, $value:expr, (opt $k:tt), $rows:expr) => {{
        let values = &mut $builder.values;
        let mut first = 0;
        if $crate::export::table::NoValues::no_values(values) {
            // The nulls before the first value are the rows before it: nothing to store.
            // Written as a search for the first value, so that a column the rows leave
            // null (a constant `None`) costs no loop at all.
            while first < $n && ($value)(first).is_none() {
                first += 1;
            }
            if first < $n {
                values.append_nulls($rows + first);
            }
        }
        for i in first..$n {
            values.append_option(($value)(i));
        }
    }};
    ($builder:expr, $n:expr, $value:expr, str, $rows:expr) => {
        for i in 0..$n {
            $builder.append_value(($value)(i));
        }
    };
    ($builder:expr, $n:expr, $value:expr, $k:tt, $rows:expr) => {
        $builder.extend((0..$n).map($value))
    };
}

/// The array of `$rows` rows a column's builder holds, taken out of it.
macro_rules! finish {
    ($builder:expr, (runs str), $rows:expr) => {
        $builder.finish()
    };
    ($builder:expr, (dict str), $rows:expr) => {
        $builder.finish()
    };
    ($builder:expr, (opt $k:tt), $rows:expr) => {
        if $crate::export::table::NoValues::no_values(&$builder.values) {
            $builder.all_null(&$crate::export::table::data_type!($k), $rows)
        } else {
            std::sync::Arc::new($builder.values.finish()) as arrow_array::ArrayRef
        }
    };
    ($builder:expr, str, $rows:expr) => {
        std::sync::Arc::new($builder.finish()) as arrow_array::ArrayRef
    };
    ($builder:expr, $k:tt, $rows:expr) => {
        std::sync::Arc::new(<$crate::export::table::array_type!($k)>::from(
            std::mem::take(&mut $builder),
        )) as arrow_array::ArrayRef
    };
}

/// A column builder that starts without memory. Arrow's builders start with room for
/// 1,024 rows, which the arrays they make keep: a small file's batch of a row or two took
/// tens of kilobytes, allocated, handed on and freed for every file.
pub(crate) trait Empty {
    /// The builder, holding nothing.
    fn empty() -> Self;
}

impl<T> Empty for Vec<T> {
    fn empty() -> Self {
        Vec::new()
    }
}

impl<T: arrow_array::ArrowPrimitiveType> Empty for arrow_array::builder::PrimitiveBuilder<T> {
    fn empty() -> Self {
        Self::with_capacity(0)
    }
}

impl Empty for arrow_array::builder::BooleanBuilder {
    fn empty() -> Self {
        Self::with_capacity(0)
    }
}

impl Empty for arrow_array::builder::StringBuilder {
    fn empty() -> Self {
        Self::with_capacity(0, 0)
    }
}

impl<B: Empty> Empty for Nullable<B> {
    fn empty() -> Self {
        Nullable {
            values: B::empty(),
            all_null: None,
        }
    }
}

impl Empty for Runs {
    fn empty() -> Self {
        Runs {
            keys: Vec::new(),
            values: arrow_array::builder::StringBuilder::empty(),
            last: String::new(),
            runs: 0,
        }
    }
}

/// The builder of a nullable column. Nothing is stored for the nulls before the first
/// value (they are as many as the rows before it), so a column that is null in every row
/// (a teehistorian file's velocities in `ticks`, say) costs nothing per row and becomes
/// an all-null array at the end: appending, even counting, a null per row showed in the
/// profile.
#[derive(Debug)]
pub(crate) struct Nullable<B> {
    /// The values from the first non-null one on, after as many nulls as rows before it.
    pub(crate) values: B,
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

/// The values of a nullable column of numbers from its first non-null one on (see
/// [`Nullable`]): a plain vector, and which rows hold a value only once a null came after
/// a value. Arrow's `PrimitiveBuilder` kept its null count up to date at every value, in a
/// call the compiler did not inline: 8 % of a demo's export, whose five nullable `ticks`
/// columns hold a value in every row.
#[derive(Debug)]
pub(crate) struct OptValues<T: arrow_array::ArrowPrimitiveType> {
    values: Vec<T::Native>,
    /// Which rows hold a value; `None` while every one does.
    valid: Option<arrow_array::builder::BooleanBufferBuilder>,
}

impl<T: arrow_array::ArrowPrimitiveType> OptValues<T> {
    /// Appends a row holding `value`.
    #[inline(always)]
    pub(crate) fn append_value(&mut self, value: T::Native) {
        self.values.push(value);
        if let Some(valid) = &mut self.valid {
            valid.append(true);
        }
    }

    /// Appends a null row.
    pub(crate) fn append_null(&mut self) {
        self.append_nulls(1);
    }

    /// Appends `n` null rows.
    pub(crate) fn append_nulls(&mut self, n: usize) {
        let len = self.values.len();
        let valid = self.valid.get_or_insert_with(|| {
            let mut valid = arrow_array::builder::BooleanBufferBuilder::new(len + n);
            valid.append_n(len, true);
            valid
        });
        valid.append_n(n, false);
        self.values.resize(len + n, T::Native::default());
    }

    /// Appends a row of `value` or a null.
    #[inline(always)]
    pub(crate) fn append_option(&mut self, value: Option<T::Native>) {
        match value {
            Some(value) => self.append_value(value),
            None => self.append_null(),
        }
    }

    /// The rows as an array; the builder starts empty again.
    pub(crate) fn finish(&mut self) -> arrow_array::PrimitiveArray<T> {
        let values = std::mem::take(&mut self.values).into();
        let nulls = self.valid.take().map(|mut valid| valid.finish().into());
        arrow_array::PrimitiveArray::new(values, nulls)
    }
}

impl<T: arrow_array::ArrowPrimitiveType> Empty for OptValues<T> {
    fn empty() -> Self {
        OptValues {
            values: Vec::new(),
            valid: None,
        }
    }
}

/// Whether a nullable column's values builder holds no value yet.
pub(crate) trait NoValues {
    /// No value appended since the last finish.
    fn no_values(&self) -> bool;
}

impl<T: arrow_array::ArrowPrimitiveType> NoValues for OptValues<T> {
    fn no_values(&self) -> bool {
        self.values.is_empty()
    }
}

impl NoValues for arrow_array::builder::BooleanBuilder {
    fn no_values(&self) -> bool {
        arrow_array::builder::ArrayBuilder::is_empty(self)
    }
}

impl NoValues for arrow_array::builder::StringBuilder {
    fn no_values(&self) -> bool {
        arrow_array::builder::ArrayBuilder::is_empty(self)
    }
}

/// The builder of a `(runs str)` column: a key per row, and a value per run of equal
/// values. A teehistorian file's `ticks` repeat its path in millions of rows; as plain
/// strings those were most of the table's bytes, and copying them a fifth of the time it
/// took to fill it.
#[derive(Debug)]
pub(crate) struct Runs {
    keys: Vec<i32>,
    values: arrow_array::builder::StringBuilder,
    /// The last run's value; its key is `runs - 1`.
    last: String,
    runs: i32,
}

impl Runs {
    /// The column's Arrow type.
    pub(crate) fn data_type() -> arrow_schema::DataType {
        arrow_schema::DataType::Dictionary(
            Box::new(arrow_schema::DataType::Int32),
            Box::new(arrow_schema::DataType::Utf8),
        )
    }

    /// Appends a row of `value`.
    #[inline]
    pub(crate) fn push(&mut self, value: &str) {
        if self.runs == 0 || value != self.last {
            self.values.append_value(value);
            self.last.clear();
            self.last.push_str(value);
            self.runs += 1;
        }
        self.keys.push(self.runs - 1);
    }

    /// Appends `n` rows, the `i`th of `value(i)`.
    #[inline]
    pub(crate) fn push_rows<'a>(&mut self, n: usize, value: impl Fn(usize) -> &'a str) {
        let mut previous: Option<&str> = None;
        for i in 0..n {
            let value = value(i);
            // The values of one call are all alive at once, so the same address and
            // length is the same string: no comparison of the bytes for the rows of a
            // run after its first.
            if !previous.is_some_and(|p| std::ptr::eq(p, value)) {
                self.push(value);
                previous = Some(value);
            } else {
                self.keys.push(self.runs - 1);
            }
        }
    }

    /// The rows as a dictionary array; the builder starts empty again.
    // Every key is the index of a value appended before it (the builder's only way to add
    // a key): the dictionary is valid.
    #[allow(clippy::expect_used)]
    pub(crate) fn finish(&mut self) -> arrow_array::ArrayRef {
        let keys = arrow_array::Int32Array::from(std::mem::take(&mut self.keys));
        let values = std::sync::Arc::new(self.values.finish());
        self.runs = 0;
        std::sync::Arc::new(
            arrow_array::DictionaryArray::<arrow_array::types::Int32Type>::try_new(keys, values)
                .expect("every key names a value appended before it"),
        )
    }

    /// Makes room for `rows` rows (a file's batches are mostly full ones).
    pub(crate) fn renew(&mut self, rows: usize) {
        self.keys = Vec::with_capacity(rows);
    }
}

/// The builder of a `(dict str)` column: a key per row, and each distinct value once per
/// batch. A `ticks` row's player name alternates between a game's few dozen names from row
/// to row, so runs would store nearly every row's name; a map from each value to its key
/// stores each once.
///
/// Rows name their value by a borrowed string that, for the `ticks` rows, is one of the
/// same few `String`s tick after tick. A small cache from a value's address and length to
/// its key spares most lookups their hashing: a hit is checked against the stored value's
/// bytes (the address may have been freed and reused for another string since), which
/// costs a short comparison instead of a hash, a probe and a comparison. The cache has two
/// ways: the few dozen names of a game at addresses the allocator chose would often share
/// a slot, and two names sharing one would push each other out at every row.
#[derive(Debug)]
pub(crate) struct Dict {
    keys: Vec<i32>,
    values: arrow_array::builder::StringBuilder,
    /// The key of each value in `values`.
    index: rustc_hash::FxHashMap<Box<str>, i32>,
    /// Recently seen values: address, length and key, in sets of two entries chosen by a
    /// hash of the address (the newer first).
    recent: [(usize, u32, i32); DICT_RECENT],
}

/// Entries of [`Dict`]'s cache, two per set: enough sets that three of a game's names
/// (up to 128) seldom share one.
const DICT_RECENT: usize = 1024;

impl Dict {
    /// Appends a row of `value`.
    #[inline]
    pub(crate) fn push(&mut self, value: &str) {
        let key = self.key(value);
        self.keys.push(key);
    }

    /// The key of `value`, appended to the values if it is new.
    #[inline(always)]
    fn key(&mut self, value: &str) -> i32 {
        let address = value.as_ptr() as usize;
        // A multiplicative hash: its top bits depend on every bit of the address, so that
        // strings the allocator placed at a common stride spread over the sets.
        let set = (address.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 55) % (DICT_RECENT / 2);
        let slot = 2 * set;
        // `slot + 1` is within the cache (`set` < half its length): the checks fold away.
        let Some(&(cached, len, key)) = self.recent.get(slot) else {
            return self.key_missed(value, address, slot);
        };
        if cached == address && len as usize == value.len() && self.holds(key, value) {
            return key;
        }
        self.key_missed(value, address, slot)
    }

    /// [`key`](Self::key) for a value not in the cache: looked up by its bytes (a call
    /// apart, so that the cache's check is inlined where rows are pushed).
    #[inline(never)]
    fn key_missed(&mut self, value: &str, address: usize, slot: usize) -> i32 {
        if let Some(&(cached, len, key)) = self.recent.get(slot + 1)
            && cached == address
            && len as usize == value.len()
            && self.holds(key, value)
        {
            return key;
        }
        let key = match self.index.get(value) {
            Some(&key) => key,
            None => {
                let key = self.index.len() as i32;
                self.values.append_value(value);
                self.index.insert(value.into(), key);
                key
            }
        };
        // The older entry of the set makes room for this one.
        if let Some([newer, older]) = self.recent.get_mut(slot..slot + 2) {
            *older = *newer;
            // A value too long for the cache's length is looked up every time.
            *newer = (address, u32::try_from(value.len()).unwrap_or(0), key);
        }
        key
    }

    /// Whether the value of `key` is `value`, compared byte by byte: names are short, and
    /// a call of the library's comparison costs more than the loop.
    #[inline]
    fn holds(&self, key: i32, value: &str) -> bool {
        let offsets = self.values.offsets_slice();
        let key = key as usize;
        let (Some(&start), Some(&end)) = (offsets.get(key), offsets.get(key + 1)) else {
            return false;
        };
        let Some(stored) = self.values.values_slice().get(start as usize..end as usize) else {
            return false;
        };
        stored.len() == value.len() && stored.iter().zip(value.as_bytes()).all(|(a, b)| a == b)
    }

    /// Appends `n` rows, the `i`th of `value(i)`.
    #[inline]
    pub(crate) fn push_rows<'a>(&mut self, n: usize, value: impl Fn(usize) -> &'a str) {
        self.keys.reserve(n);
        for i in 0..n {
            self.push(value(i));
        }
    }

    /// The rows as a dictionary array; the builder starts empty again.
    // Every key is the index of a value appended before it (the builder's only way to add
    // a key): the dictionary is valid.
    #[allow(clippy::expect_used)]
    pub(crate) fn finish(&mut self) -> arrow_array::ArrayRef {
        let keys = arrow_array::Int32Array::from(std::mem::take(&mut self.keys));
        let values = std::sync::Arc::new(self.values.finish());
        self.index.clear();
        self.recent = [(0, 0, 0); DICT_RECENT];
        std::sync::Arc::new(
            arrow_array::DictionaryArray::<arrow_array::types::Int32Type>::try_new(keys, values)
                .expect("every key names a value appended before it"),
        )
    }

    /// Makes room for `rows` rows (a file's batches are mostly full ones).
    pub(crate) fn renew(&mut self, rows: usize) {
        self.keys = Vec::with_capacity(rows);
    }
}

impl Empty for Dict {
    fn empty() -> Self {
        Dict {
            keys: Vec::new(),
            values: arrow_array::builder::StringBuilder::empty(),
            index: rustc_hash::FxHashMap::default(),
            recent: [(0, 0, 0); DICT_RECENT],
        }
    }
}

pub(crate) use {
    append, append_rows, array_type, arrow_builder_type, builder_type, column_field, data_type,
    finish, renew, row_type, tables,
};

#[cfg(test)]
mod tests {
    use super::{Dict, Empty, Runs};
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int32Type;
    use proptest::strategy::Strategy as _;

    /// What a `Runs` column holds, row by row.
    fn values(runs: &mut Runs) -> Vec<String> {
        let array = runs.finish();
        let dictionary = array.as_dictionary::<Int32Type>();
        let strings = dictionary.values().as_string::<i32>();
        dictionary
            .keys()
            .values()
            .iter()
            .map(|&k| strings.value(k as usize).to_owned())
            .collect()
    }

    /// A table to try the column kinds on (the test uses only part of what is generated).
    #[allow(dead_code)]
    mod probe {
        tables! {
            /// A table to try the column kinds on.
            Probe "probe", ProbeRow, ProbeColumns {
                /// A path.
                path: (runs str),
                /// Sometimes null.
                maybe: (opt i32),
                /// Never null.
                value: i32,
                /// A string.
                name: str,
                /// Sometimes a string.
                note: (opt str),
                /// A few strings in any order.
                who: (dict str),
            }
        }
    }
    use probe::{ProbeColumns, ProbeRow};

    /// Rows appended in bulk give the batch rows appended one by one give, for optional
    /// columns null at first, null throughout, and mixed.
    #[test]
    fn push_rows_is_push_in_a_loop() {
        let patterns: [&dyn Fn(usize) -> Option<i32>; 4] = [
            &|_| None,
            &|i| (i >= 3).then_some(i as i32),
            &|i| (i % 2 == 0).then_some(-(i as i32)),
            &|i| Some(i as i32),
        ];
        for (a, first) in patterns.iter().enumerate() {
            for (b, then) in patterns.iter().enumerate() {
                let row = |i: usize, maybe: &dyn Fn(usize) -> Option<i32>| ProbeRow {
                    path: if i < 5 { "x" } else { "y" },
                    maybe: maybe(i),
                    value: i as i32 * 7,
                    name: "n",
                    note: maybe(i).map(|_| "note"),
                    who: ["a", "b", "c"][i % 3],
                };
                let (mut bulk, mut single) = (ProbeColumns::default(), ProbeColumns::default());
                bulk.push_rows(6, |i| row(i, first));
                bulk.push_rows(4, |i| row(i + 6, then));
                for i in 0..6 {
                    single.push(&row(i, first));
                }
                for i in 6..10 {
                    single.push(&row(i, then));
                }
                assert_eq!(bulk.len(), 10);
                assert_eq!(bulk.finish(), single.finish(), "patterns {a} then {b}");
            }
        }
    }

    /// A batch of one row takes about a row's bytes, not the room for 1,024 that Arrow's
    /// builders start with: a directory of small files makes a batch of a row or two per
    /// file and table.
    #[test]
    fn a_one_row_batch_is_small() {
        let mut columns = ProbeColumns::default();
        columns.push(&ProbeRow {
            path: "p",
            maybe: Some(1),
            value: 2,
            name: "n",
            note: Some("note"),
            who: "w",
        });
        let batch = columns.finish();
        // One Arrow builder's default room, 1,024 four-byte values, is 4 KiB.
        assert!(
            batch.get_array_memory_size() < 4096,
            "{}",
            batch.get_array_memory_size()
        );
    }

    /// The rows of the batch `dict` finishes, each value resolved through its key, and
    /// how many distinct values the batch stores.
    fn dict_rows(dict: &mut Dict) -> (Vec<String>, usize) {
        let array = dict.finish();
        let dictionary = array.as_dictionary::<Int32Type>();
        let values = dictionary.values().as_string::<i32>();
        let rows = dictionary
            .keys()
            .values()
            .iter()
            .map(|&k| values.value(k as usize).to_owned())
            .collect();
        (rows, arrow_array::Array::len(values))
    }

    /// A `(dict str)` column keeps every row's value and stores each distinct one once per
    /// batch, in rows pushed one by one and in bulk alike.
    #[test]
    fn dict_stores_each_value_once() {
        let names = ["a", "b", "c", "b", "a", "", "c"];
        let mut dict = Dict::empty();
        dict.push("c");
        dict.push_rows(names.len(), |i| names[i]);
        let (rows, stored) = dict_rows(&mut dict);
        let mut want = vec!["c"];
        want.extend(names);
        assert_eq!(rows, want);
        assert_eq!(stored, 4, "c, a, b and the empty name, once each");
        // The next batch starts its own dictionary.
        dict.push("z");
        assert_eq!(dict.finish().as_dictionary::<Int32Type>().values().len(), 1);
    }

    proptest::proptest! {
        /// A nullable number column's values give the array Arrow's own builder gives for
        /// the same appends (values, nulls, runs of nulls), batch after batch.
        #[test]
        fn opt_values_are_arrows_builder(
            batches in proptest::collection::vec(
                proptest::collection::vec(
                    proptest::prop_oneof![
                        4 => proptest::option::of(proptest::prelude::any::<i32>())
                            .prop_map(|v| (v, 1usize)),
                        1 => (0usize..70).prop_map(|n| (None, n)),
                    ],
                    0..200,
                ),
                1..4,
            ),
        ) {
            let mut ours = super::OptValues::<Int32Type>::empty();
            for batch in batches {
                let mut arrows = arrow_array::builder::Int32Builder::new();
                for (value, n) in batch {
                    match (value, n) {
                        (Some(value), _) => {
                            ours.append_option(Some(value));
                            arrows.append_value(value);
                        }
                        (None, 1) => {
                            ours.append_null();
                            arrows.append_null();
                        }
                        (None, n) => {
                            ours.append_nulls(n);
                            arrows.append_nulls(n);
                        }
                    }
                }
                proptest::prop_assert_eq!(ours.finish(), arrows.finish());
            }
        }

        /// The cache of addresses never gives a wrong key: rows of many strings (more than
        /// the cache's sets, so that sets overflow), some rewritten in place between rows
        /// (the same address then holds another value), read back as pushed, each distinct
        /// value stored once.
        #[test]
        fn dict_keeps_every_row_through_its_cache(
            strings in proptest::collection::vec("[ab]{0,3}", 1..1500),
            rows in proptest::collection::vec(
                (0..1500usize, proptest::option::weighted(0.1, "[ab]{0,3}")),
                0..3000,
            ),
        ) {
            let mut strings: Vec<String> = strings
                .into_iter()
                .map(|s| {
                    let mut owned = String::with_capacity(3);
                    owned.push_str(&s);
                    owned
                })
                .collect();
            let mut dict = Dict::empty();
            let mut want = Vec::new();
            for (i, rewrite) in rows {
                let i = i % strings.len();
                if let Some(new) = rewrite {
                    strings[i].clear();
                    strings[i].push_str(&new);
                }
                dict.push(&strings[i]);
                want.push(strings[i].clone());
            }
            let (got, stored) = dict_rows(&mut dict);
            proptest::prop_assert_eq!(&got, &want);
            let distinct: std::collections::BTreeSet<&str> = want.iter().map(String::as_str).collect();
            proptest::prop_assert_eq!(stored, distinct.len());
        }
    }

    #[test]
    fn runs_keep_every_rows_value() {
        let (a, b, other_a) = ("a".to_owned(), "b".to_owned(), "a".to_owned());
        let rows = [&a, &a, &b, &b, &other_a, &a, &b];
        let mut runs = Runs::empty();
        runs.push(&b);
        runs.push_rows(rows.len(), |i| rows[i].as_str());
        runs.push_rows(2, |i| [&a, &b][i].as_str());
        runs.push(&b);
        let mut want = vec!["b"];
        want.extend(rows.iter().map(|s| s.as_str()));
        want.extend(["a", "b", "b"]);
        assert_eq!(values(&mut runs), want);
        // A run of one value, in calls of both kinds, stores the value once.
        runs.push_rows(3, |_| a.as_str());
        runs.push(&a);
        let array = runs.finish();
        assert_eq!(array.as_dictionary::<Int32Type>().values().len(), 1);
    }
}
