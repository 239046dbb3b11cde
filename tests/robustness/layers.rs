//! The layers hold: every library module (`src/**`) and every front end (the tool in
//! `cli/src`, the C ABI in `ffi/src`, the Python package in `python/src`) is parsed with
//! `syn`, each path it names is resolved to the library item it stands for, and the
//! result is checked against the rules below, written once as data.
//!
//! # The rules
//!
//! The library's modules (the first path component under `src/`) sit in layers
//! ([`LAYER_ARROWS`] says which layer may use which) and each module lists the modules (or
//! single items) it may use ([`RULES`]):
//!
//! * the **shared** layer (`codec`, `gamenet`, `datafile`, `bsp`, `time`, `scrub`, `read`,
//!   `validation`, `output`, `shown`, `model`, `serde_util` and the format trait's `format`)
//!   uses no format, no entry point and nothing above it; the arrows inside it are listed
//!   one by one (`codec` uses nothing of the crate);
//! * the **formats** (`twdemo`, `teehistorian`, `source`) use the shared layer and never
//!   each other;
//! * **`detect`** (part of the entry point) tells formats apart by their first bytes: it
//!   names each format's magic constants and nothing else of a format;
//! * the **entry point** (`recording`) uses the formats, the shared layer and `detect`,
//!   never what sits above it;
//! * **above** the entry point, `export`, `render` and `page` use the entry point and the
//!   shared layer (and `page` uses `render`), never a format's internals, and do not tell
//!   formats apart themselves (no `Format::` variant, no comparison with a format's id);
//! * the **front ends** name only the modules in [`FRONT_END_MODULES`] and the APIs for
//!   producing files in [`FRONT_END_ITEMS`]; they never tell formats apart themselves: no
//!   `Format::` variant, no comparison with a format's id string ("twdemo", ...), no
//!   `demokit::detect`.
//!
//! What breaks a rule today is listed in [`KNOWN_VIOLATIONS`]: the test prints it, and
//! fails when the code breaks a rule the list does not name, or when an entry is no longer
//! found (a fixed violation leaves the list).
//!
//! # What the checker resolves
//!
//! Every `use` tree (groups, nested groups, `self`, `super`, `crate`, globs, renames, `pub
//! use` re-exports), every path in expressions, types, patterns, visibilities and
//! attributes, the paths in macros' token streams (`crate::x`, `$crate::x`, `super::x`,
//! `demokit::x` and names bound by a `use`), paths written as strings in attributes
//! (`#[serde(with = "crate::x")]`), `super::`/`self::` relative to the module the code is
//! in (from the file's place: `src/twdemo/edit/trim.rs` is `crate::twdemo::edit::trim`, a
//! `mod.rs` is its directory's module, inline `mod x { }` blocks nest), aliases (`use
//! crate::teehistorian as th;`, `use crate as c;`, `extern crate self as dk;`) and globs
//! of the crate root (`use crate::*;` then `twdemo::X`). Comments and doc comments are no
//! code to `syn`: a doc link is no import. `#[path]` attributes on modules are not followed
//! (the crates use none).

use crate::common;
use proc_macro2::{Spacing, TokenStream, TokenTree};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::path::Path;
use std::sync::OnceLock;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{Expr, Item, Lit, Pat, Stmt, UseTree};

// ---------------------------------------------------------------------------------------
// The rules, as data.
// ---------------------------------------------------------------------------------------

/// A layer of the library.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layer {
    /// What every format shares: codecs, the game protocol, the common types.
    Shared,
    /// One recording format.
    Format,
    /// Telling formats apart by their first bytes (`detect`, part of the entry point).
    Detect,
    /// The one way into a recording of any format (`recording`).
    EntryPoint,
    /// What is made of a recording of any format: tables, pictures, pages.
    Above,
}

/// Which layers a module of each layer may use. A module of a layer other than the shared
/// one may use any module of a layer listed here for `Shared`; every other arrow, also
/// inside the shared layer, is written out in [`RULES`].
const LAYER_ARROWS: &[(Layer, &[Layer])] = &[
    (Layer::Shared, &[Layer::Shared]),
    (Layer::Format, &[Layer::Shared]),
    (Layer::Detect, &[Layer::Format, Layer::Shared]),
    (
        Layer::EntryPoint,
        &[Layer::Format, Layer::Detect, Layer::Shared],
    ),
    (
        Layer::Above,
        &[Layer::Above, Layer::EntryPoint, Layer::Shared],
    ),
];

/// One library module: its layer and the modules it may use besides the shared layer's.
#[derive(Debug)]
struct Rule {
    /// The module's name (`crate::NAME`).
    module: &'static str,
    /// Its layer.
    layer: Layer,
    /// The modules it may name besides itself: for a shared module every one of them, for
    /// the others those outside the shared layer (which they may use whole).
    uses: &'static [&'static str],
    /// Single items of other modules it may name (an item covers what is inside it).
    items: &'static [&'static [&'static str]],
}

/// Modules [`RULES`] places before `src/lib.rs` declares them (none today).
const PLANNED: &[&str] = &[];

/// Each library module's layer and what it may use. Every arrow written here is used today
/// ([`every_arrow_the_table_allows_is_used`] keeps them so), but the planned module's.
const RULES: &[Rule] = &[
    // The shared layer, bottom up. `gamenet` and `model` use each other: the game
    // protocol's summaries carry the model's samples, the model's records carry the
    // protocol's types.
    Rule {
        module: "codec",
        layer: Layer::Shared,
        uses: &[],
        items: &[],
    },
    Rule {
        module: "time",
        layer: Layer::Shared,
        uses: &[],
        items: &[],
    },
    Rule {
        module: "read",
        layer: Layer::Shared,
        uses: &[],
        items: &[],
    },
    Rule {
        module: "compressed",
        layer: Layer::Shared,
        uses: &[],
        items: &[],
    },
    Rule {
        module: "output",
        layer: Layer::Shared,
        uses: &[],
        items: &[],
    },
    Rule {
        module: "shown",
        layer: Layer::Shared,
        uses: &[],
        items: &[],
    },
    Rule {
        module: "serde_util",
        layer: Layer::Shared,
        uses: &[],
        items: &[],
    },
    Rule {
        module: "validation",
        layer: Layer::Shared,
        uses: &[],
        items: &[],
    },
    Rule {
        module: "datafile",
        layer: Layer::Shared,
        uses: &["read"],
        items: &[],
    },
    // Source maps (`.bsp`), which a Source demo names but does not hold: read for
    // pictures, like a Teeworlds map's datafile.
    Rule {
        module: "bsp",
        layer: Layer::Shared,
        uses: &["read"],
        items: &[],
    },
    Rule {
        module: "gamenet",
        layer: Layer::Shared,
        uses: &["codec", "model", "serde_util"],
        items: &[],
    },
    Rule {
        module: "model",
        layer: Layer::Shared,
        uses: &["gamenet", "time"],
        items: &[],
    },
    Rule {
        module: "scrub",
        layer: Layer::Shared,
        uses: &["gamenet"],
        items: &[],
    },
    // The format trait: the shared types a format's operations name.
    Rule {
        module: "format",
        layer: Layer::Shared,
        uses: &[
            "compressed",
            "gamenet",
            "model",
            "read",
            "scrub",
            "time",
            "validation",
        ],
        items: &[],
    },
    // The formats: the shared layer, nothing else.
    Rule {
        module: "twdemo",
        layer: Layer::Format,
        uses: &[],
        items: &[],
    },
    Rule {
        module: "teehistorian",
        layer: Layer::Format,
        uses: &[],
        items: &[],
    },
    Rule {
        module: "source",
        layer: Layer::Format,
        uses: &[],
        items: &[],
    },
    // Part of the entry point: reads each format's magic, nothing else of it.
    Rule {
        module: "detect",
        layer: Layer::Detect,
        uses: &[],
        items: &[
            &["twdemo", "container", "format", "MAGIC"],
            &["teehistorian", "format", "FILE_UUID"],
            &["source", "format", "MAGIC"],
            &["source", "format", "GOLDSRC_MAGIC"],
            &["source", "format", "SOURCE2_MAGIC"],
        ],
    },
    // The entry point: dispatches on the format.
    Rule {
        module: "recording",
        layer: Layer::EntryPoint,
        uses: &["detect", "twdemo", "teehistorian", "source"],
        items: &[],
    },
    // Above the entry point: a page holds a picture.
    Rule {
        module: "export",
        layer: Layer::Above,
        uses: &["recording"],
        items: &[],
    },
    Rule {
        module: "render",
        layer: Layer::Above,
        uses: &["recording"],
        items: &[],
    },
    Rule {
        module: "page",
        layer: Layer::Above,
        uses: &["recording", "render"],
        items: &[],
    },
];

/// The library modules a front end may name as a whole (`demokit::NAME`).
const FRONT_END_MODULES: &[&str] = &[
    // The entry point and what sits above it.
    "recording",
    "export",
    "render",
    "page",
    // Shared types the entry point hands out or takes: the game model's selections, the
    // output files' checks, tick ranges, text for terminals and JSON, scrub mappings,
    // the game protocol's logs, names and version, a map's facts.
    "model",
    "output",
    "time",
    "shown",
    "scrub",
    "gamenet",
    "datafile",
];

/// Single items of a format (or of the codec) a front end may name: the recorder APIs
/// meant for producing files. An item covers what is inside it (`teehistorian::Recorder`
/// covers `teehistorian::Recorder::new`).
const FRONT_END_ITEMS: &[&[&str]] = &[
    // The demo recorder (the C ABI's `demokit_demo_*`), its configuration (with the
    // Huffman rule of the DDNet version it writes for), the snapshots it takes and its
    // error.
    &["twdemo", "Recorder"],
    &["twdemo", "RecorderConfig"],
    &["twdemo", "Snapshot"],
    &["twdemo", "WriteError"],
    &["codec", "huffman", "LengthRule"],
    // The teehistorian recorder (the C ABI's `demokit_th_*`, the Python package's
    // `TeehistorianRecorder`), its header, flushing and error, the width of an input and
    // the header's default comment.
    &["teehistorian", "Recorder"],
    &["teehistorian", "RecorderError"],
    &["teehistorian", "FlushPolicy"],
    &["teehistorian", "Header"],
    &["teehistorian", "format", "INPUT_INTS"],
    &["teehistorian", "format", "COMMENT"],
];

/// The ids formats go by (`Format::id` in `src/detect.rs`).
const FORMAT_IDS: &[&str] = &["twdemo", "teehistorian", "source", "goldsrc", "source2"];

/// The variants of `Format` (`src/detect.rs`).
const FORMAT_VARIANTS: &[&str] = &[
    "TwDemo",
    "Teehistorian",
    "SourceDemo",
    "GoldSrcDemo",
    "Source2Demo",
];

/// The directories of the front ends.
const FRONT_ENDS: &[&str] = &["cli/src", "ffi/src", "python/src"];

/// What breaks the rules today: (file, what it names). Nothing does: the tables read the
/// game stream of the entry point, no format's internals. A new entry is a debt to pay
/// (the test fails when an entry is no longer found, so the list never goes stale).
const KNOWN_VIOLATIONS: &[(&str, &str)] = &[];

// ---------------------------------------------------------------------------------------
// The checker.
// ---------------------------------------------------------------------------------------

/// Which side of the library a file is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    /// A module of the library (`src/`): `crate::` is the library.
    Library,
    /// A front end: the library is the extern crate `demokit`.
    FrontEnd,
}

/// What the resolver needs to know of the crate a file belongs to.
#[derive(Debug, Clone)]
struct Crate {
    /// Library or front end.
    side: Side,
    /// Names that stand for the library's root everywhere in the crate: `demokit` in a
    /// front end, and `extern crate ... as NAME` at the crate root.
    roots: BTreeSet<String>,
    /// The library's crate-root modules.
    modules: BTreeSet<String>,
    /// The library root's `use` bindings (a re-export at the root is followed).
    root_uses: BTreeMap<String, Vec<String>>,
}

impl Crate {
    /// The crate of the file at `file` (relative to the repository), with no root-level
    /// aliases or re-exports, the library's modules being those of [`RULES`].
    fn for_file(file: &str) -> Crate {
        let side = if file.starts_with("src/") {
            Side::Library
        } else {
            Side::FrontEnd
        };
        let roots = match side {
            Side::Library => BTreeSet::new(),
            Side::FrontEnd => BTreeSet::from(["demokit".to_string()]),
        };
        Crate {
            side,
            roots,
            modules: RULES.iter().map(|r| r.module.to_string()).collect(),
            root_uses: BTreeMap::new(),
        }
    }

    /// Adds what the crate root `root` (parsed) binds crate-wide: `extern crate` aliases
    /// of the library, and (for the library) the root's `use` bindings.
    fn learn_root(&mut self, root: &syn::File) {
        let mut resolver = Resolver::new(self, Vec::new());
        resolver.enter_module(&root.items);
        let scope = resolver.scopes.pop().expect("the root scope");
        for (name, path) in scope.names {
            if path.is_empty() {
                self.roots.insert(name);
            } else if self.side == Side::Library {
                self.root_uses.insert(name, path);
            }
        }
    }
}

/// The module path of a library file from its place under `src/`: `src/lib.rs` is the
/// root, `src/a/b.rs` and `src/a/b/mod.rs` are `a::b`.
fn module_path(file: &str) -> Vec<String> {
    let relative = file.strip_prefix("src/").unwrap_or(file);
    let relative = relative.strip_suffix(".rs").unwrap_or(relative);
    if relative == "lib" {
        return Vec::new();
    }
    let mut parts: Vec<String> = relative.split('/').map(str::to_string).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The names one scope binds: `use` items (and `extern crate` aliases) of a module or a
/// block.
#[derive(Debug, Default)]
struct Scope {
    /// Name -> the library path it stands for.
    names: BTreeMap<String, Vec<String>>,
    /// The library paths imported with `*`.
    globs: Vec<Vec<String>>,
}

/// One leaf of a `use` tree.
#[derive(Debug)]
struct UseEntry {
    /// The path as written, `self` leaves folded into their parent.
    segments: Vec<String>,
    /// Whether it starts with `::`.
    leading_colon: bool,
    /// The name it binds (`None` for a glob or `as _`).
    binds: Option<String>,
    /// Whether it is a glob.
    glob: bool,
}

/// The leaves of the `use` tree `tree` under `prefix`.
fn use_entries(tree: &UseTree, prefix: &mut Vec<String>, leading_colon: bool) -> Vec<UseEntry> {
    let mut out = Vec::new();
    match tree {
        UseTree::Path(p) => {
            prefix.push(ident(&p.ident));
            out.extend(use_entries(&p.tree, prefix, leading_colon));
            prefix.pop();
        }
        UseTree::Name(n) => {
            let name = ident(&n.ident);
            let mut segments = prefix.clone();
            if name != "self" {
                segments.push(name.clone());
            }
            out.push(UseEntry {
                binds: segments.last().cloned(),
                segments,
                leading_colon,
                glob: false,
            });
        }
        UseTree::Rename(r) => {
            let name = ident(&r.ident);
            let mut segments = prefix.clone();
            if name != "self" {
                segments.push(name);
            }
            let rename = ident(&r.rename);
            out.push(UseEntry {
                segments,
                leading_colon,
                binds: (rename != "_").then_some(rename),
                glob: false,
            });
        }
        UseTree::Glob(_) => out.push(UseEntry {
            segments: prefix.clone(),
            leading_colon,
            binds: None,
            glob: true,
        }),
        UseTree::Group(g) => {
            for item in &g.items {
                out.extend(use_entries(item, prefix, leading_colon));
            }
        }
    }
    out
}

/// An identifier as text, without `r#`.
fn ident(ident: &syn::Ident) -> String {
    syn::ext::IdentExt::unraw(ident).to_string()
}

/// The leaves of the `use` items among `items`, and the `extern crate` aliases of the
/// library (as leaves naming the root).
fn entries_of<'a>(items: impl Iterator<Item = &'a Item>, side: Side) -> Vec<UseEntry> {
    let mut entries = Vec::new();
    for item in items {
        match item {
            Item::Use(u) => {
                entries.extend(use_entries(
                    &u.tree,
                    &mut Vec::new(),
                    u.leading_colon.is_some(),
                ));
            }
            Item::ExternCrate(e) => {
                let name = ident(&e.ident);
                let library = match side {
                    Side::Library => name == "self",
                    Side::FrontEnd => name == "demokit",
                };
                if let (true, Some((_, rename))) = (library, &e.rename) {
                    let root = match side {
                        Side::Library => "crate",
                        Side::FrontEnd => "demokit",
                    };
                    entries.push(UseEntry {
                        segments: vec![root.to_string()],
                        leading_colon: false,
                        binds: Some(ident(rename)),
                        glob: false,
                    });
                }
            }
            _ => {}
        }
    }
    entries
}

/// What a file names of the library, as found.
#[derive(Debug, Default)]
struct Scan {
    /// Library paths (from the root) the file names -> the line of the first mention.
    named: BTreeMap<Vec<String>, usize>,
    /// Format ids the file compares a string with -> line.
    compared: BTreeMap<String, usize>,
    /// `Format::Variant` (or `Format::*`) the file names -> line.
    variants: BTreeMap<String, usize>,
}

/// Resolves the paths of one file and records them in a [`Scan`].
struct Resolver<'c> {
    /// The crate the file belongs to.
    krate: &'c Crate,
    /// The module the code being visited is in (library files; empty in a front end).
    module: Vec<String>,
    /// The scopes open, innermost last.
    scopes: Vec<Scope>,
    /// Where the current module's scopes start in `scopes` (a module sees none of its
    /// parent's bindings).
    module_starts: Vec<usize>,
    /// What was found.
    scan: Scan,
}

impl<'c> Resolver<'c> {
    /// A resolver for code in module `module` of `krate`.
    fn new(krate: &'c Crate, module: Vec<String>) -> Resolver<'c> {
        Resolver {
            krate,
            module,
            scopes: Vec::new(),
            module_starts: vec![0],
            scan: Scan::default(),
        }
    }

    /// The scopes of the current module, innermost first.
    fn visible(&self) -> impl Iterator<Item = &Scope> {
        let start = *self.module_starts.last().unwrap();
        self.scopes[start..].iter().rev()
    }

    /// The library path `rest` names from the library root, a re-export at the root
    /// followed.
    fn through_root(&self, rest: &[String]) -> Vec<String> {
        match rest
            .first()
            .and_then(|first| self.krate.root_uses.get(first))
        {
            Some(target) => target.iter().chain(&rest[1..]).cloned().collect(),
            None => rest.to_vec(),
        }
    }

    /// The library path `segments` stands for here, if it names the library. `in_use`:
    /// a `use` path, where a lone module name is a path too.
    fn resolve(
        &self,
        leading_colon: bool,
        segments: &[String],
        in_use: bool,
    ) -> Option<Vec<String>> {
        let first = segments.first()?.as_str();
        let rest = &segments[1..];
        let library = self.krate.side == Side::Library;
        if leading_colon {
            return self
                .krate
                .roots
                .contains(first)
                .then(|| self.through_root(rest));
        }
        match first {
            "crate" | "$crate" => library.then(|| self.through_root(rest)),
            "self" | "super" => {
                if !library {
                    return None;
                }
                let mut base = self.module.clone();
                let mut at = usize::from(first == "self");
                while segments.get(at).is_some_and(|s| s == "super") {
                    base.pop()?;
                    at += 1;
                }
                base.extend(segments[at..].iter().cloned());
                Some(self.through_root(&base))
            }
            _ => {
                for scope in self.visible() {
                    if let Some(target) = scope.names.get(first) {
                        return Some(target.iter().chain(rest).cloned().collect());
                    }
                }
                if self.krate.roots.contains(first) {
                    return Some(self.through_root(rest));
                }
                // A crate-root module's name: a path from the root in the root module
                // itself, or where the root was glob-imported. Alone, outside a `use`, such
                // a name is a local variable, not a module.
                if (in_use || segments.len() >= 2) && self.krate.modules.contains(first) {
                    let at_root = library && self.module.is_empty();
                    let root_glob = self
                        .visible()
                        .any(|scope| scope.globs.iter().any(Vec::is_empty));
                    if at_root || root_glob {
                        return Some(self.through_root(segments));
                    }
                }
                None
            }
        }
    }

    /// Records that the code names library path `path` at `line`.
    fn name(&mut self, path: Vec<String>, line: usize) {
        check_variants(&path, line, &mut self.scan.variants);
        self.scan.named.entry(path).or_insert(line);
    }

    /// Resolves and records a path as written.
    fn path(&mut self, leading_colon: bool, segments: &[String], in_use: bool, line: usize) {
        check_variants(segments, line, &mut self.scan.variants);
        if let Some(path) = self.resolve(leading_colon, segments, in_use) {
            self.name(path, line);
        }
    }

    /// Opens a scope binding the `use` items of `items` (a module's or a block's): a
    /// `use` may name what another binds, whatever their order, so the scope is built
    /// until nothing more resolves.
    fn open_scope<'a>(&mut self, items: impl Iterator<Item = &'a Item>) {
        let entries = entries_of(items, self.krate.side);
        self.scopes.push(Scope::default());
        let mut pending: Vec<&UseEntry> = entries.iter().collect();
        loop {
            let before = pending.len();
            pending.retain(|entry| {
                let Some(target) = self.resolve(entry.leading_colon, &entry.segments, true) else {
                    return true;
                };
                let scope = self.scopes.last_mut().unwrap();
                if entry.glob {
                    scope.globs.push(target);
                } else if let Some(name) = &entry.binds {
                    scope.names.insert(name.clone(), target);
                }
                false
            });
            if pending.len() == before {
                break;
            }
        }
    }

    /// Enters a module whose items are `items`: a scope of its own, none of its parent's.
    fn enter_module(&mut self, items: &[Item]) {
        self.module_starts.push(self.scopes.len());
        self.open_scope(items.iter());
    }

    /// Leaves the module entered last.
    fn leave_module(&mut self) {
        self.scopes.pop();
        self.module_starts.pop();
    }

    /// Records a comparison with the string literal `lit`, if it is a format id.
    fn compare(&mut self, lit: &Lit) {
        if let Lit::Str(s) = lit
            && FORMAT_IDS.contains(&s.value().as_str())
        {
            let line = s.span().start().line;
            self.scan.compared.entry(s.value()).or_insert(line);
        }
    }

    /// Scans a token stream (a macro's, an attribute's) for paths and for format ids next
    /// to `==`, `!=`, `=>` or a pattern's `|`. `strings_as_paths`: a string literal that
    /// reads as a path of two segments or more (`"crate::x::y"`) is a path too
    /// (attributes).
    fn scan_tokens(&mut self, tokens: TokenStream, strings_as_paths: bool) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut at = 0;
        while at < trees.len() {
            match &trees[at] {
                TokenTree::Group(g) => {
                    self.scan_tokens(g.stream(), strings_as_paths);
                    at += 1;
                }
                TokenTree::Literal(l) => {
                    let lit = Lit::new(l.clone());
                    if compared_at(&trees, at) {
                        self.compare(&lit);
                    }
                    if strings_as_paths
                        && let Lit::Str(s) = &lit
                        && let Ok(path) = syn::parse_str::<syn::Path>(&s.value())
                        && path.segments.len() >= 2
                    {
                        let segments: Vec<String> =
                            path.segments.iter().map(|s| ident(&s.ident)).collect();
                        let line = s.span().start().line;
                        self.path(path.leading_colon.is_some(), &segments, false, line);
                    }
                    at += 1;
                }
                _ => match token_path(&trees, at) {
                    Some((leading_colon, segments, next)) => {
                        let line = trees[at].span().start().line;
                        self.path(leading_colon, &segments, false, line);
                        at = next;
                    }
                    None => at += 1,
                },
            }
        }
    }

    /// Parses a macro's body as the expressions (or `matches!` pattern) it most likely
    /// holds, and visits them; a body that parses as neither was scanned as tokens only.
    fn parse_macro_body(&mut self, mac: &syn::Macro) {
        let name = mac
            .path
            .segments
            .last()
            .map(|s| ident(&s.ident))
            .unwrap_or_default();
        if name == "matches" {
            let parsed = mac.parse_body_with(|input: syn::parse::ParseStream| {
                let expr: Expr = input.parse()?;
                input.parse::<syn::Token![,]>()?;
                let pat = Pat::parse_multi_with_leading_vert(input)?;
                let guard = if input.parse::<Option<syn::Token![if]>>()?.is_some() {
                    Some(input.parse::<Expr>()?)
                } else {
                    None
                };
                input.parse::<Option<syn::Token![,]>>()?;
                Ok((expr, pat, guard))
            });
            if let Ok((expr, pat, guard)) = parsed {
                self.visit_expr(&expr);
                self.visit_pat(&pat);
                if let Some(guard) = guard {
                    self.visit_expr(&guard);
                }
            }
            return;
        }
        let parsed = mac.parse_body_with(Punctuated::<Expr, syn::Token![,]>::parse_terminated);
        if let Ok(args) = parsed {
            let comparing = matches!(
                name.as_str(),
                "assert_eq" | "assert_ne" | "debug_assert_eq" | "debug_assert_ne"
            );
            for (i, arg) in args.iter().enumerate() {
                if comparing
                    && i < 2
                    && let Some(lit) = literal(arg)
                {
                    self.compare(lit);
                }
                self.visit_expr(arg);
            }
        }
    }
}

/// The literal `expr` is, under references, parentheses and groups.
fn literal(expr: &Expr) -> Option<&Lit> {
    match expr {
        Expr::Lit(l) => Some(&l.lit),
        Expr::Reference(r) => literal(&r.expr),
        Expr::Paren(p) => literal(&p.expr),
        Expr::Group(g) => literal(&g.expr),
        _ => None,
    }
}

/// Records `Format::Variant` pairs in `segments` (and a glob of `Format`, ending in
/// `Format`, is recorded by its caller).
fn check_variants(segments: &[String], line: usize, variants: &mut BTreeMap<String, usize>) {
    for pair in segments.windows(2) {
        if pair[0] == "Format" && FORMAT_VARIANTS.contains(&pair[1].as_str()) {
            variants
                .entry(format!("Format::{}", pair[1]))
                .or_insert(line);
        }
    }
}

/// Whether the punctuation `c` is at `at` in `trees`, with spacing `joint` when given.
fn punct_at(trees: &[TokenTree], at: usize, c: char, joint: Option<bool>) -> bool {
    matches!(trees.get(at), Some(TokenTree::Punct(p))
        if p.as_char() == c
            && joint.is_none_or(|j| j == (p.spacing() == Spacing::Joint)))
}

/// Whether `::` starts at `at`.
fn colon_colon_at(trees: &[TokenTree], at: usize) -> bool {
    punct_at(trees, at, ':', Some(true)) && punct_at(trees, at + 1, ':', None)
}

/// Whether the literal at `at` is compared: next to `==` or `!=`, before `=>` (a match
/// arm) or before a pattern's `|`.
fn compared_at(trees: &[TokenTree], at: usize) -> bool {
    let operator = |first: usize| {
        (punct_at(trees, first, '=', Some(true)) || punct_at(trees, first, '!', Some(true)))
            && punct_at(trees, first + 1, '=', None)
    };
    let after = operator(at + 1)
        || (punct_at(trees, at + 1, '=', Some(true)) && punct_at(trees, at + 2, '>', None))
        || punct_at(trees, at + 1, '|', Some(false));
    let before = at >= 2 && operator(at - 2);
    after || before
}

/// The path starting at `at` in a token stream, if one does: `::`, then `$crate` or an
/// identifier, then `:: identifier` repeated. Returns its leading `::`, its segments and
/// where it ends. An identifier after `.` (a field, a method) or `$` (a macro variable) is
/// no path.
fn token_path(trees: &[TokenTree], at: usize) -> Option<(bool, Vec<String>, usize)> {
    let mut i = at;
    let leading_colon = colon_colon_at(trees, i);
    if leading_colon {
        i += 2;
    } else if at > 0 && (punct_at(trees, at - 1, '.', None) || punct_at(trees, at - 1, '$', None)) {
        return None;
    }
    let mut segments = Vec::new();
    match (trees.get(i), trees.get(i + 1)) {
        (Some(TokenTree::Punct(p)), Some(TokenTree::Ident(id)))
            if p.as_char() == '$' && id == "crate" =>
        {
            segments.push("$crate".to_string());
            i += 2;
        }
        (Some(TokenTree::Ident(id)), _) => {
            segments.push(ident(id));
            i += 1;
        }
        _ => return None,
    }
    while colon_colon_at(trees, i) {
        let Some(TokenTree::Ident(id)) = trees.get(i + 2) else {
            break;
        };
        segments.push(ident(id));
        i += 3;
    }
    Some((leading_colon, segments, i))
}

impl<'ast> Visit<'ast> for Resolver<'_> {
    /// An inline module: a module of its own, nested in the file's.
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        for attr in &m.attrs {
            self.visit_attribute(attr);
        }
        if let Some((_, items)) = &m.content {
            self.module.push(ident(&m.ident));
            self.enter_module(items);
            for item in items {
                self.visit_item(item);
            }
            self.leave_module();
            self.module.pop();
        }
    }

    /// A block: a scope for the `use` items inside it.
    fn visit_block(&mut self, block: &'ast syn::Block) {
        self.open_scope(block.stmts.iter().filter_map(|s| match s {
            Stmt::Item(item) => Some(item),
            _ => None,
        }));
        visit::visit_block(self, block);
        self.scopes.pop();
    }

    /// A `use` item (a re-export too): each leaf names what it resolves to.
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        for attr in &u.attrs {
            self.visit_attribute(attr);
        }
        let line = u.span().start().line;
        for entry in use_entries(&u.tree, &mut Vec::new(), u.leading_colon.is_some()) {
            check_variants(&entry.segments, line, &mut self.scan.variants);
            if entry.glob && entry.segments.last().is_some_and(|s| s == "Format") {
                self.scan
                    .variants
                    .entry("Format::*".to_string())
                    .or_insert(line);
            }
            if let Some(path) = self.resolve(entry.leading_colon, &entry.segments, true) {
                self.name(path, line);
            }
        }
    }

    /// Any path: in an expression, a type, a pattern, a visibility, an attribute.
    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| ident(&s.ident)).collect();
        let line = path.span().start().line;
        self.path(path.leading_colon.is_some(), &segments, false, line);
        visit::visit_path(self, path);
    }

    /// An attribute but a doc comment: its path, its arguments' paths and path strings.
    fn visit_attribute(&mut self, attr: &'ast syn::Attribute) {
        if attr.path().is_ident("doc") {
            return;
        }
        self.visit_path(attr.path());
        match &attr.meta {
            syn::Meta::Path(_) => {}
            syn::Meta::List(list) => self.scan_tokens(list.tokens.clone(), true),
            syn::Meta::NameValue(nv) => self.visit_expr(&nv.value),
        }
    }

    /// A macro: its path, the paths in its tokens, and its body parsed where it can be.
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.visit_path(&mac.path);
        self.scan_tokens(mac.tokens.clone(), false);
        self.parse_macro_body(mac);
    }

    /// `==` and `!=` with a format's id.
    fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
        if matches!(e.op, syn::BinOp::Eq(_) | syn::BinOp::Ne(_)) {
            for side in [&*e.left, &*e.right] {
                if let Some(lit) = literal(side) {
                    self.compare(lit);
                }
            }
        }
        visit::visit_expr_binary(self, e);
    }

    /// `.eq(..)` and `.ne(..)` with a format's id.
    fn visit_expr_method_call(&mut self, e: &'ast syn::ExprMethodCall) {
        if e.method == "eq" || e.method == "ne" {
            for side in std::iter::once(&*e.receiver).chain(&e.args) {
                if let Some(lit) = literal(side) {
                    self.compare(lit);
                }
            }
        }
        visit::visit_expr_method_call(self, e);
    }

    /// A literal pattern (a `match` arm, `if let`) that is a format's id.
    fn visit_pat(&mut self, p: &'ast Pat) {
        if let Pat::Lit(l) = p {
            self.compare(&l.lit);
        }
        visit::visit_pat(self, p);
    }
}

/// Scans the file `file` (its place relative to the repository decides its module and
/// side) whose code is `code`, in crate `krate`.
fn scan(file: &str, code: &str, krate: &Crate) -> Scan {
    let parsed = syn::parse_file(code)
        .unwrap_or_else(|e| panic!("{file}:{}: does not parse: {e}", e.span().start().line));
    let module = match krate.side {
        Side::Library => module_path(file),
        Side::FrontEnd => Vec::new(),
    };
    let mut resolver = Resolver::new(krate, module);
    resolver.enter_module(&parsed.items);
    resolver.visit_file(&parsed);
    resolver.leave_module();
    resolver.scan
}

/// A rule broken: the file, what it names (as the file would write it from the library's
/// root: `crate::x::y` or `demokit::x::y`, `Format::X`, `== "id"`) and a line.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Finding {
    /// The file, relative to the repository.
    file: String,
    /// What breaks the rule.
    what: String,
    /// A line that names it (the first).
    line: usize,
}

/// The rule of library module `module`.
fn rule(module: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.module == module)
}

/// Whether `path` starts with `prefix`.
fn starts_with(path: &[String], prefix: &[&str]) -> bool {
    path.len() >= prefix.len() && path.iter().zip(prefix).all(|(a, b)| a == b)
}

/// The layer of library module `module`, if it has a rule.
fn layer_of(module: &str) -> Option<Layer> {
    rule(module).map(|r| r.layer)
}

/// The layers a module of `layer` may use.
fn arrows(layer: Layer) -> &'static [Layer] {
    LAYER_ARROWS
        .iter()
        .find(|(l, _)| *l == layer)
        .map(|(_, to)| *to)
        .expect("every layer has its arrows")
}

/// Whether a file (of `side`, in top module `top` for the library, `None` for the root
/// `src/lib.rs`) may name library path `path`.
fn allowed(side: Side, top: Option<&str>, path: &[String]) -> bool {
    let Some(first) = path.first() else {
        // The root itself (`use crate as c`, `use demokit::*`): what goes through it is
        // checked where it is used.
        return true;
    };
    let item = |items: &[&[&str]]| items.iter().any(|item| starts_with(path, item));
    match side {
        Side::Library => {
            let Some(top) = top else {
                // `src/lib.rs` declares the modules.
                return true;
            };
            let Some(rule) = rule(top) else {
                return false;
            };
            let shared_whole = rule.layer != Layer::Shared
                && arrows(rule.layer).contains(&Layer::Shared)
                && layer_of(first) == Some(Layer::Shared);
            first == top || rule.uses.contains(&first.as_str()) || shared_whole || item(rule.items)
        }
        Side::FrontEnd => FRONT_END_MODULES.contains(&first.as_str()) || item(FRONT_END_ITEMS),
    }
}

/// Whether code in `side`/`top` must not tell formats apart itself.
fn must_not_dispatch(side: Side, top: Option<&str>) -> bool {
    match side {
        Side::FrontEnd => true,
        Side::Library => top.and_then(rule).is_some_and(|r| r.layer == Layer::Above),
    }
}

/// The rules file `file` (code `code`, in crate `krate`) breaks. A path is reported once,
/// by its shortest form the file names (`crate::a` covers `crate::a::B`).
fn check_file(file: &str, code: &str, krate: &Crate) -> Vec<Finding> {
    let scan = scan(file, code, krate);
    let side = krate.side;
    let module = module_path(file);
    let top = match side {
        Side::Library => module.first().map(String::as_str),
        Side::FrontEnd => None,
    };
    if side == Side::Library
        && let Some(top) = top
    {
        assert!(rule(top).is_some(), "{file}: module {top} has no rule");
    }
    let anchor = match side {
        Side::Library => "crate",
        Side::FrontEnd => "demokit",
    };
    let broken: Vec<(&Vec<String>, usize)> = scan
        .named
        .iter()
        .filter(|(path, _)| !allowed(side, top, path))
        .map(|(path, line)| (path, *line))
        .collect();
    let mut findings = Vec::new();
    for (path, line) in &broken {
        let covered = broken
            .iter()
            .any(|(other, _)| other.len() < path.len() && path.starts_with(other));
        if !covered {
            findings.push(Finding {
                file: file.to_string(),
                what: format!("{anchor}::{}", path.join("::")),
                line: *line,
            });
        }
    }
    if must_not_dispatch(side, top) {
        for (id, line) in &scan.compared {
            findings.push(Finding {
                file: file.to_string(),
                what: format!("compares with {id:?}"),
                line: *line,
            });
        }
        for (variant, line) in &scan.variants {
            findings.push(Finding {
                file: file.to_string(),
                what: variant.clone(),
                line: *line,
            });
        }
    }
    findings.sort();
    findings
}

// ---------------------------------------------------------------------------------------
// The repository.
// ---------------------------------------------------------------------------------------

/// A file's path relative to the repository root, with `/`.
fn relative(root: &Path, path: &Path) -> String {
    let relative = path.strip_prefix(root).unwrap();
    relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Reads and parses the file at `path`.
fn parse(path: &Path) -> syn::File {
    let code = std::fs::read_to_string(path).unwrap();
    syn::parse_file(&code).unwrap_or_else(|e| panic!("{}: does not parse: {e}", path.display()))
}

/// The modules `src/lib.rs` declares.
fn declared_modules(root: &Path) -> BTreeSet<String> {
    parse(&root.join("src/lib.rs"))
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Mod(m) => Some(ident(&m.ident)),
            _ => None,
        })
        .collect()
}

/// The crate of the files under `dir` (`src` or a front end's `src`), its root learnt.
fn crate_of(root: &Path, dir: &str) -> Crate {
    let mut krate = Crate::for_file(&format!("{dir}/lib.rs"));
    krate.modules = declared_modules(root);
    for name in ["lib.rs", "main.rs"] {
        let path = root.join(dir).join(name);
        if path.is_file() {
            krate.learn_root(&parse(&path));
        }
    }
    krate
}

/// Every finding over the library and the front ends, and what each file names (for the
/// checks that the scan sees anything at all).
fn check_repository() -> (Vec<Finding>, BTreeMap<String, Scan>) {
    let root = common::root();
    let mut findings = Vec::new();
    let mut scans = BTreeMap::new();
    for dir in std::iter::once("src").chain(FRONT_ENDS.iter().copied()) {
        let krate = crate_of(&root, dir);
        let files = common::files_with_extension(&root.join(dir), "rs");
        assert!(!files.is_empty(), "no files under {dir}");
        for path in files {
            let file = relative(&root, &path);
            let code = std::fs::read_to_string(&path).unwrap();
            findings.extend(check_file(&file, &code, &krate));
            scans.insert(file.clone(), scan(&file, &code, &krate));
        }
    }
    findings.sort();
    (findings, scans)
}

/// The library's import graph: top module -> the other top modules its files name.
fn graph(scans: &BTreeMap<String, Scan>) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, scan) in scans {
        if !file.starts_with("src/") {
            continue;
        }
        let Some(top) = module_path(file).first().cloned() else {
            continue;
        };
        let used = graph.entry(top.clone()).or_default();
        for path in scan.named.keys() {
            if let Some(first) = path.first()
                && *first != top
            {
                used.insert(first.clone());
            }
        }
    }
    graph
}

/// The library and the front ends keep the rules, but for [`KNOWN_VIOLATIONS`]: exactly
/// those are found, no more (a new violation) and no fewer (a fixed one must leave the
/// list).
#[test]
fn layers_hold_but_for_the_known_violations() {
    let (findings, scans) = repository();
    // Straight to the standard error, past the test harness's capture: the list is
    // printed on every run, not only on a failure.
    let mut loud = format!(
        "\nKNOWN LAYERING VIOLATIONS ({}), each to be removed (tests/robustness/layers.rs):\n",
        KNOWN_VIOLATIONS.len()
    );
    for (file, what) in KNOWN_VIOLATIONS {
        loud.push_str(&format!("  {file}: {what}\n"));
    }
    std::io::stderr().write_all(loud.as_bytes()).unwrap();
    let found: BTreeSet<(String, String)> = findings
        .iter()
        .map(|f| (f.file.clone(), f.what.clone()))
        .collect();
    let known: BTreeSet<(String, String)> = KNOWN_VIOLATIONS
        .iter()
        .map(|(f, w)| (f.to_string(), w.to_string()))
        .collect();
    assert_eq!(
        known.len(),
        KNOWN_VIOLATIONS.len(),
        "KNOWN_VIOLATIONS lists an entry twice"
    );
    let new: Vec<String> = findings
        .iter()
        .filter(|f| !known.contains(&(f.file.clone(), f.what.clone())))
        .map(|f| format!("{}:{}: {}", f.file, f.line, f.what))
        .collect();
    let fixed: Vec<String> = known
        .difference(&found)
        .map(|(f, w)| format!("{f}: {w}"))
        .collect();
    assert!(
        new.is_empty() && fixed.is_empty(),
        "layers broken (not in KNOWN_VIOLATIONS):\n  {}\nno longer found (remove from \
         KNOWN_VIOLATIONS):\n  {}\n(library imports: {:#?})",
        new.join("\n  "),
        fixed.join("\n  "),
        graph(scans)
    );
}

/// The findings and scans over the repository, computed once for the tests that read them.
fn repository() -> &'static (Vec<Finding>, BTreeMap<String, Scan>) {
    static REPOSITORY: OnceLock<(Vec<Finding>, BTreeMap<String, Scan>)> = OnceLock::new();
    REPOSITORY.get_or_init(check_repository)
}

/// Every module `src/lib.rs` declares has a rule, every rule a module (or a planned one),
/// each once, and every layer its arrows.
#[test]
fn every_module_has_a_rule_and_every_rule_a_module() {
    let declared = declared_modules(&common::root());
    let mut ruled = BTreeSet::new();
    for rule in RULES {
        assert!(ruled.insert(rule.module), "two rules for {}", rule.module);
        assert!(
            declared.contains(rule.module) || PLANNED.contains(&rule.module),
            "a rule for {}, which src/lib.rs does not declare",
            rule.module
        );
    }
    for module in &declared {
        assert!(
            ruled.contains(module.as_str()),
            "no rule for module {module}"
        );
        assert!(
            !PLANNED.contains(&module.as_str()),
            "{module} exists now: take it out of PLANNED and narrow its rule to what it uses"
        );
    }
    for layer in [
        Layer::Shared,
        Layer::Format,
        Layer::Detect,
        Layer::EntryPoint,
        Layer::Above,
    ] {
        assert!(arrows(layer).contains(&Layer::Shared) || layer == Layer::Shared);
    }
}

/// The table's arrows follow the layers' ([`LAYER_ARROWS`]): no shared module uses a
/// format, the entry point or what is above it, no format another, the entry point
/// nothing above it; non-shared rows do not repeat the shared layer they get whole; the
/// front ends are allowed no format and no `detect` as a whole.
#[test]
fn the_table_keeps_the_layers() {
    for rule in RULES {
        let targets = rule
            .uses
            .iter()
            .copied()
            .chain(rule.items.iter().map(|item| item[0]));
        for target in targets {
            let layer = layer_of(target).unwrap_or_else(|| panic!("no rule for {target}"));
            assert_ne!(target, rule.module, "{} lists itself", rule.module);
            assert!(
                arrows(rule.layer).contains(&layer),
                "{} ({:?}) may not use {target} ({layer:?})",
                rule.module,
                rule.layer
            );
            assert!(
                rule.layer == Layer::Shared || layer != Layer::Shared,
                "{} gets the shared layer whole: {target} need not be listed",
                rule.module
            );
        }
    }
    for module in FRONT_END_MODULES {
        let layer = layer_of(module).unwrap_or_else(|| panic!("no rule for {module}"));
        assert!(
            matches!(layer, Layer::Shared | Layer::EntryPoint | Layer::Above),
            "front ends may name {module} ({layer:?}) whole"
        );
    }
    for item in FRONT_END_ITEMS {
        let layer = layer_of(item[0]).unwrap_or_else(|| panic!("no rule for {}", item[0]));
        assert!(matches!(layer, Layer::Shared | Layer::Format), "{item:?}");
        assert!(item.len() >= 2, "{item:?} is a whole module");
    }
}

/// Every arrow the table writes out is used today, and every module and item the front
/// ends may name is named by one: the table says what the code does, not more (the planned
/// module aside). This also shows that the checker sees the imports at all.
#[test]
fn every_arrow_the_table_allows_is_used() {
    let (_, scans) = repository();
    let graph = graph(scans);
    let mut unused = Vec::new();
    for rule in RULES.iter().filter(|r| !PLANNED.contains(&r.module)) {
        let used = &graph[rule.module];
        for target in rule.uses {
            if !used.contains(*target) {
                unused.push(format!("{} -> {target}", rule.module));
            }
        }
        for item in rule.items {
            let named = scans.iter().any(|(file, scan)| {
                file.starts_with("src/")
                    && module_path(file).first().map(String::as_str) == Some(rule.module)
                    && scan.named.keys().any(|path| starts_with(path, item))
            });
            if !named {
                unused.push(format!("{} -> {}", rule.module, item.join("::")));
            }
        }
    }
    let front_end_names: Vec<&Vec<String>> = scans
        .iter()
        .filter(|(file, _)| !file.starts_with("src/"))
        .flat_map(|(_, scan)| scan.named.keys())
        .collect();
    for module in FRONT_END_MODULES.iter().filter(|m| !PLANNED.contains(m)) {
        if !front_end_names
            .iter()
            .any(|p| p.first().is_some_and(|f| f == module))
        {
            unused.push(format!("front ends -> {module}"));
        }
    }
    for item in FRONT_END_ITEMS {
        if !front_end_names.iter().any(|p| starts_with(p, item)) {
            unused.push(format!("front ends -> {}", item.join("::")));
        }
    }
    assert!(
        unused.is_empty(),
        "allowed but unused (take them out of the table):\n  {}\n(library imports: {graph:#?})",
        unused.join("\n  ")
    );
}

/// The checker itself, fed small pieces of code as if they were a given file: each way of
/// naming another layer must be found, and allowed names must pass.
mod checker_tests {
    use super::*;

    /// What the checker reports in `code`, were it the file `file`.
    fn found(file: &str, code: &str) -> Vec<String> {
        check_file(file, code, &Crate::for_file(file))
            .into_iter()
            .map(|f| f.what)
            .collect()
    }

    /// Asserts that `code`, were it the file `file`, breaks the rules with `expected`
    /// (and nothing else).
    #[track_caller]
    fn assert_found(file: &str, code: &str, expected: &[&str]) {
        let mut expected: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
        expected.sort();
        assert_eq!(found(file, code), expected, "{file}:\n{code}");
    }

    /// Form 1: a format imports another.
    #[test]
    fn a_use_of_another_format() {
        assert_found(
            "src/twdemo/mod.rs",
            "use crate::teehistorian::TeehistorianReader;",
            &["crate::teehistorian::TeehistorianReader"],
        );
    }

    /// Form 2: in a group.
    #[test]
    fn a_grouped_use() {
        assert_found(
            "src/twdemo/mod.rs",
            "use crate::{teehistorian::TeehistorianReader};",
            &["crate::teehistorian::TeehistorianReader"],
        );
    }

    /// Form 3: in a nested group with `self`; the allowed `codec` beside it passes.
    #[test]
    fn a_nested_group_with_self() {
        assert_found(
            "src/twdemo/mod.rs",
            "use crate::{codec, teehistorian::{self, X}};",
            &["crate::teehistorian"],
        );
    }

    /// Form 4: `super::` paths, counted from the file's module: `src/twdemo/edit/mod.rs`
    /// is `crate::twdemo::edit`, so `super::super` is the root; from
    /// `src/twdemo/edit/trim.rs` it takes three. Inline modules nest.
    #[test]
    fn super_paths() {
        assert_found(
            "src/twdemo/edit/mod.rs",
            "fn f() { super::super::teehistorian::X::new(); }",
            &["crate::teehistorian::X::new"],
        );
        assert_found(
            "src/twdemo/edit/trim.rs",
            "use super::super::super::teehistorian::X;",
            &["crate::teehistorian::X"],
        );
        assert_found(
            "src/twdemo/edit/trim.rs",
            "use self::super::super::super::teehistorian::X;",
            &["crate::teehistorian::X"],
        );
        assert_found(
            "src/codec/mod.rs",
            "mod a { mod b { use super::super::super::twdemo::X; } }",
            &["crate::twdemo::X"],
        );
    }

    /// `super::super::teehistorian::X` from `crate::twdemo::edit::trim` is
    /// `crate::twdemo::teehistorian::X`: inside the format, no finding of its own (it
    /// compiles only if `twdemo` imports `teehistorian`, which is found there).
    #[test]
    fn super_paths_resolve_from_the_module() {
        let file = "src/twdemo/edit/trim.rs";
        let code = "fn f() { super::super::teehistorian::X::new(); }";
        assert_found(file, code, &[]);
        let scan = scan(file, code, &Crate::for_file(file));
        let expected: Vec<String> = ["twdemo", "teehistorian", "X", "new"]
            .map(String::from)
            .to_vec();
        assert!(scan.named.contains_key(&expected), "{:?}", scan.named);
    }

    /// Form 5: a path in an expression, with no `use`.
    #[test]
    fn an_expression_path() {
        assert_found(
            "src/twdemo/snapshot/mod.rs",
            "fn f(r: R) { let _ = crate::source::SourceReader::new(r); }",
            &["crate::source::SourceReader::new"],
        );
    }

    /// Paths in types, generic arguments, patterns, attributes, visibilities and trait
    /// impls.
    #[test]
    fn paths_everywhere_else() {
        let file = "src/twdemo/mod.rs";
        let cases = [
            (
                "fn g(_: &crate::source::SourceReader) {}",
                "crate::source::SourceReader",
            ),
            (
                "fn k() -> Vec<crate::source::Frame> { todo!() }",
                "crate::source::Frame",
            ),
            (
                "fn h(k: K) { if let crate::source::Kind::A = k {} }",
                "crate::source::Kind::A",
            ),
            (
                "#[crate::source::marker] fn i() {}",
                "crate::source::marker",
            ),
            ("pub(in crate::source) fn j() {}", "crate::source"),
            ("impl crate::source::Trait for S {}", "crate::source::Trait"),
            (
                "fn l() { let _ = <S as crate::source::Trait>::X; }",
                "crate::source::Trait::X",
            ),
        ];
        for (code, expected) in cases {
            assert_found(file, code, &[expected]);
        }
    }

    /// Form 6: aliases, in any order: `use crate::teehistorian as th;` is found (and
    /// `th::X` is it), `use crate as c;` makes `c::teehistorian::X` a path from the root.
    #[test]
    fn aliases() {
        let file = "src/twdemo/mod.rs";
        assert_found(
            file,
            "use crate::teehistorian as th; fn f() { th::X::new(); }",
            &["crate::teehistorian"],
        );
        assert_found(
            file,
            "use crate as c; fn f() { c::teehistorian::X::new(); }",
            &["crate::teehistorian::X::new"],
        );
        assert_found(
            file,
            "fn f(_: th::X) {} use c::teehistorian as th; use crate as c;",
            &["crate::teehistorian"],
        );
    }

    /// Form 7: a re-export in a shared module; and a shared arrow the table does not list
    /// (`codec` uses nothing).
    #[test]
    fn a_re_export_in_a_shared_module() {
        assert_found(
            "src/codec/mod.rs",
            "pub use crate::twdemo::X;",
            &["crate::twdemo::X"],
        );
        assert_found(
            "src/codec/huffman.rs",
            "use crate::gamenet::Protocol;",
            &["crate::gamenet::Protocol"],
        );
    }

    /// Form 8: a front end names a format's reader, in an expression or a type, with or
    /// without a leading `::`.
    #[test]
    fn a_front_end_naming_a_format() {
        assert_found(
            "cli/src/info.rs",
            "fn f() { let _ = demokit::twdemo::DemoReader::new(); }",
            &["demokit::twdemo::DemoReader::new"],
        );
        assert_found(
            "cli/src/info.rs",
            "fn g(_: ::demokit::twdemo::DemoReader) {}",
            &["demokit::twdemo::DemoReader"],
        );
    }

    /// Form 9: a front end's grouped use, its aliases of the library, and `detect`.
    #[test]
    fn a_front_end_group_and_aliases() {
        let file = "ffi/src/demo.rs";
        assert_found(
            file,
            "use demokit::{recording, twdemo::X};",
            &["demokit::twdemo::X"],
        );
        assert_found(
            file,
            "use demokit as dk; fn f() { dk::source::SourceReader::new(); }",
            &["demokit::source::SourceReader::new"],
        );
        assert_found(
            file,
            "extern crate demokit as dk2; fn f() { dk2::twdemo::X::new(); }",
            &["demokit::twdemo::X::new"],
        );
        assert_found(
            file,
            "use demokit::detect::detect;",
            &["demokit::detect::detect"],
        );
        assert_found(
            file,
            "use demokit::*; fn f() { twdemo::X::new(); }",
            &["demokit::twdemo::X::new"],
        );
    }

    /// Form 10: a front end compares a string with a format's id (`==`, `!=`, `.eq`, a
    /// `match` arm, `assert_eq!`, `matches!`, inside another macro) or names a `Format`
    /// variant (directly, through an alias, by a glob).
    #[test]
    fn a_front_end_telling_formats_apart() {
        let file = "python/src/lib.rs";
        let cases: [(&str, &[&str]); 11] = [
            (
                "fn f(r: &R) -> bool { r.format().id() == \"twdemo\" }",
                &["compares with \"twdemo\""],
            ),
            (
                "fn f(id: &str) -> u8 { match id { \"teehistorian\" => 1, _ => 0 } }",
                &["compares with \"teehistorian\""],
            ),
            (
                "fn f(id: &str) -> bool { \"source\" != id }",
                &["compares with \"source\""],
            ),
            (
                "fn f(id: &str) -> bool { id.eq(\"twdemo\") }",
                &["compares with \"twdemo\""],
            ),
            (
                "fn f(id: &str) { assert_eq!(id, \"goldsrc\"); }",
                &["compares with \"goldsrc\""],
            ),
            (
                "fn f(id: &str) -> bool { matches!(id, \"source2\" | \"twdemo\") }",
                &["compares with \"source2\"", "compares with \"twdemo\""],
            ),
            (
                "fn f(id: &str) { println!(\"{}\", if id == \"twdemo\" { 1 } else { 0 }); }",
                &["compares with \"twdemo\""],
            ),
            (
                "use demokit::recording::Format; fn f(r: &R) -> bool { r.format() == Format::TwDemo }",
                &["Format::TwDemo"],
            ),
            (
                "use demokit::recording::Format as F; fn f(r: &R) -> bool { r.format() == F::SourceDemo }",
                &["Format::SourceDemo"],
            ),
            ("use demokit::recording::Format::*;", &["Format::*"]),
            (
                "use demokit::recording::Format::{TwDemo};",
                &["Format::TwDemo"],
            ),
        ];
        for (code, expected) in cases {
            assert_found(file, code, expected);
        }
    }

    /// A format's id that is compared with nothing is no finding: returned, bound, an
    /// attribute's value.
    #[test]
    fn a_format_id_not_compared_passes() {
        assert_found(
            "cli/src/info.rs",
            "#[derive(S)] #[serde(rename = \"source\")] struct S; \
             fn f() -> &'static str { let id = \"teehistorian\"; \"twdemo\" }",
            &[],
        );
    }

    /// Form 11: what sits above the entry point names a format's internals; it may use
    /// the entry point, and a page may use a picture but not the other way round; the
    /// tables may not compare format ids either.
    #[test]
    fn above_the_entry_point_naming_a_format() {
        assert_found(
            "src/render/gather.rs",
            "use crate::twdemo::game::TickLogger;",
            &["crate::twdemo::game::TickLogger"],
        );
        assert_found(
            "src/page/mod.rs",
            "fn f(s: crate::source::SourceSlice) {}",
            &["crate::source::SourceSlice"],
        );
        assert_found(
            "src/export/mod.rs",
            "use crate::teehistorian::{TeehistorianReader};",
            &["crate::teehistorian::TeehistorianReader"],
        );
        assert_found(
            "src/export/mod.rs",
            "fn f(id: &str) -> bool { id == \"twdemo\" }",
            &["compares with \"twdemo\""],
        );
        assert_found(
            "src/export/mod.rs",
            "use crate::recording::{Recording, Visitor}; use crate::model::Sample;",
            &[],
        );
        assert_found("src/page/mod.rs", "use crate::render::Scene;", &[]);
        assert_found(
            "src/render/mod.rs",
            "use crate::page::Page;",
            &["crate::page::Page"],
        );
    }

    /// Form 12: the entry point names what sits above it; the formats it may.
    #[test]
    fn the_entry_point_naming_what_is_above_it() {
        assert_found(
            "src/recording/render.rs",
            "use crate::render::Scene;",
            &["crate::render::Scene"],
        );
        assert_found(
            "src/recording/page.rs",
            "use super::super::page::Page;",
            &["crate::page::Page"],
        );
        assert_found(
            "src/recording/mod.rs",
            "fn f() { crate::export::Exporter::new(); }",
            &["crate::export::Exporter::new"],
        );
        assert_found(
            "src/recording/mod.rs",
            "use crate::twdemo::DemoReader; use crate::detect::Format;",
            &[],
        );
    }

    /// Form 13: `detect` or a shared module names the entry point; `detect` names more of
    /// a format than its magic.
    #[test]
    fn detect_and_the_shared_layer_naming_the_entry_point() {
        assert_found(
            "src/detect.rs",
            "use crate::recording::Recording;",
            &["crate::recording::Recording"],
        );
        assert_found(
            "src/time.rs",
            "fn f() -> crate::recording::Error { todo!() }",
            &["crate::recording::Error"],
        );
        assert_found(
            "src/detect.rs",
            "use crate::twdemo::DemoReader; use crate::twdemo::container::format::MAGIC as M;",
            &["crate::twdemo::DemoReader"],
        );
    }

    /// Paths inside macros: a `macro_rules!` body's `$crate::` and `super::` paths, an
    /// argument of `format!`, the body of a macro that is no expression list (`vec![x; n]`).
    #[test]
    fn paths_in_macros() {
        let file = "src/teehistorian/mod.rs";
        assert_found(
            file,
            "macro_rules! m { () => { $crate::twdemo::X }; }",
            &["crate::twdemo::X"],
        );
        assert_found(
            file,
            "mod inner { macro_rules! m { () => { super::super::twdemo::X }; } }",
            &["crate::twdemo::X"],
        );
        assert_found(
            file,
            "fn f() -> String { format!(\"{}\", crate::twdemo::X) }",
            &["crate::twdemo::X"],
        );
        assert_found(
            file,
            "fn f() { let _ = vec![crate::twdemo::X; 3]; }",
            &["crate::twdemo::X"],
        );
    }

    /// `extern crate self as dk;` makes `dk::` a path from the root.
    #[test]
    fn extern_crate_self_alias() {
        assert_found(
            "src/source/mod.rs",
            "extern crate self as dk; fn f() { dk::twdemo::X::new(); }",
            &["crate::twdemo::X::new"],
        );
    }

    /// A glob of the root makes a module's name a path from the root; alone, such a name
    /// is a variable.
    #[test]
    fn a_glob_of_the_root() {
        let file = "src/source/mod.rs";
        assert_found(
            file,
            "use crate::*; fn f() { twdemo::X::new(); }",
            &["crate::twdemo::X::new"],
        );
        assert_found(file, "use crate::*; fn f(twdemo: u8) -> u8 { twdemo }", &[]);
    }

    /// A path written as a string in an attribute (`#[serde(with = "...")]`), and a `use`
    /// inside a function body.
    #[test]
    fn attribute_strings_and_block_uses() {
        let file = "src/source/mod.rs";
        assert_found(
            file,
            "struct S { #[serde(with = \"crate::twdemo::hex\")] x: u8 }",
            &["crate::twdemo::hex"],
        );
        assert_found(
            file,
            "fn f() { use crate::twdemo::X; let _ = X::new(); }",
            &["crate::twdemo::X"],
        );
    }

    /// A re-export at the root (`src/lib.rs`) is followed: `crate::Name` is what it names.
    #[test]
    fn a_root_re_export_is_followed() {
        let file = "src/source/mod.rs";
        let mut krate = Crate::for_file(file);
        krate.learn_root(&syn::parse_file("pub use twdemo::DemoReader;").unwrap());
        let findings: Vec<String> = check_file(file, "use crate::DemoReader;", &krate)
            .into_iter()
            .map(|f| f.what)
            .collect();
        assert_eq!(findings, ["crate::twdemo::DemoReader"]);
    }

    /// Comments and doc comments are no code: a doc link is no import.
    #[test]
    fn comments_are_no_imports() {
        assert_found(
            "src/source/mod.rs",
            "//! See [`crate::twdemo`].\n/// Like [`X`](crate::twdemo::X).\n\
             fn f() {} // crate::twdemo::X\n/* use crate::teehistorian::Y; */",
            &[],
        );
    }

    /// Allowed names pass: a format using the codec (by `use` and by path), the root
    /// naming anything, a front end using the entry point and a recorder.
    #[test]
    fn allowed_names_pass() {
        assert_found(
            "src/twdemo/mod.rs",
            "use crate::codec::varint; fn f() { varint::read(); crate::codec::huffman::X::new(); }",
            &[],
        );
        assert_found(
            "src/lib.rs",
            "pub use twdemo::DemoReader; fn f() { crate::source::X::new(); }",
            &[],
        );
        assert_found(
            "cli/src/info.rs",
            "use demokit::recording::Recording; fn f(r: &Recording) -> &str { r.format().id() }",
            &[],
        );
        assert_found(
            "ffi/src/teehistorian.rs",
            "use demokit::teehistorian::{Header, Recorder}; \
             fn f() { let _ = demokit::teehistorian::Recorder::<W>::new(); }",
            &[],
        );
    }
}
