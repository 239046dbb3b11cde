//! What `demokit info` and `validate` report for a Source demo.
