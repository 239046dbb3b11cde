//! Teeworlds 0.7 (placeholder while the table is written).
