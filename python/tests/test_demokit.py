"""The demokit Python package on the repository's fixtures and the real recordings of the
test corpus: ``fixtures/shared/real-fixtures`` (what may ship with the repository), or the
whole ``../shared/real-fixtures`` where ``DEMOKIT_SHARED`` points (required with
``CI=true``).

The tables must be exactly those ``demokit export`` writes for the same files (the CLI
binary is ``DEMOKIT_BIN``, else ``target/debug/demokit``), errors must carry their byte
offsets, and reading must work from several threads at once.
"""

import json
import os
import subprocess
import threading
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pytest

import demokit

ROOT = Path(__file__).resolve().parents[2]
FULL_CORPUS = os.environ.get("DEMOKIT_SHARED")
SHARED = (Path(FULL_CORPUS) if FULL_CORPUS else ROOT / "fixtures" / "shared") / "real-fixtures"
FIXTURE = ROOT / "fixtures" / "recorded_v6.demo"


def decoded(table: pa.Table) -> pa.Table:
    """``table`` with its dictionary-encoded columns (``path``) as plain ones: pyarrow's
    ``sort_by`` sorts no dictionary column."""
    fields = [
        pa.field(f.name, f.type.value_type, f.nullable) if pa.types.is_dictionary(f.type) else f
        for f in table.schema
    ]
    return table.cast(pa.schema(fields))


def shared() -> Path:
    """The corpus's ``real-fixtures``: never skipped, since the repository ships a part."""
    if os.environ.get("CI") == "true" and not FULL_CORPUS:
        pytest.fail("CI=true but DEMOKIT_SHARED is not set (CI points it at ../shared)")
    assert (SHARED / "facts.json").is_file(), f"{SHARED} holds no facts.json"
    return SHARED


def recordings_in_facts() -> int:
    """How many recordings the corpus's ``facts.json`` lists."""
    facts = json.loads((shared() / "facts.json").read_text())
    return sum(len(facts[k]) for k in ("twdemo", "teehistorian", "source"))


def demokit_bin() -> Path:
    path = Path(os.environ.get("DEMOKIT_BIN", ROOT / "target" / "debug" / "demokit"))
    if not path.is_file():
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but the CLI {path} is not built")
        pytest.skip(f"the CLI {path} is not built (cargo build)")
    return path


def test_open_a_demo_gives_its_header_and_tables():
    rec = demokit.open(FIXTURE)
    assert rec.format == "twdemo"
    assert rec.header["map_name"] == "demokit_fixture"
    assert rec.error is None
    files = rec.files().to_pylist()
    assert len(files) == 1
    assert files[0]["path"] == str(FIXTURE)
    assert files[0]["records"] == rec.header["counts"]["tick_markers"] + sum(
        rec.header["counts"][k] for k in ("snapshots", "deltas", "messages", "unknown")
    )
    for name in demokit.Recording.TABLES:
        table = rec.table(name)
        assert isinstance(table, pa.Table)
        assert table.schema.names[0] == "path"


def test_not_a_recording_raises_with_the_offset(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_bytes(b"hello")
    with pytest.raises(demokit.DemokitError) as caught:
        demokit.open(path)
    assert caught.value.offset == 0
    assert caught.value.path == str(path)
    with pytest.raises(demokit.DemokitError) as caught:
        demokit.open(tmp_path / "missing.demo")
    assert caught.value.offset is None
    assert "cannot read" in caught.value.message


def test_errors_are_the_standard_librarys_kinds_with_the_path_and_one_offset(tmp_path):
    missing = tmp_path / "missing.demo"
    with pytest.raises(FileNotFoundError) as caught:
        demokit.open(missing)
    assert isinstance(caught.value, demokit.NotFoundError)
    assert str(missing) in str(caught.value)
    notes = tmp_path / "notes.txt"
    notes.write_bytes(b"hello")
    with pytest.raises(ValueError) as caught:
        demokit.open(notes)
    assert isinstance(caught.value, demokit.InvalidRecordingError)
    text = str(caught.value)
    assert text.startswith(f"{notes}: at byte 0: "), text
    assert text.count("at byte") == 1, text
    out = tmp_path / "out.demo"
    out.write_bytes(b"keep me")
    with pytest.raises(ValueError) as caught:
        demokit.rewrite(FIXTURE, out)
    assert isinstance(caught.value, demokit.UsageError)
    with pytest.raises(demokit.UsageError):
        demokit.trim(FIXTURE, tmp_path / "cut.demo", ticks=("5", None))
    # Only the API shows.
    assert "json" not in dir(demokit) and "pa" not in dir(demokit)
    assert "open" in dir(demokit) and "DemokitError" in dir(demokit)


def test_a_cut_recording_opens_with_its_error_and_the_rows_before():
    data = (shared() / "teehistorian" / "v2_ddnet201_dm1.teehistorian").read_bytes()
    whole_inputs = None
    cut_path = Path(os.environ.get("TMPDIR", "/tmp")) / f"demokit-cut-{os.getpid()}.teehistorian"
    try:
        cut_path.write_bytes(data[: len(data) // 2])
        rec = demokit.open(cut_path)
        assert rec.error is not None
        assert 0 < rec.error.offset <= len(data) // 2
        assert rec.inputs().num_rows > 0
        whole_inputs = demokit.open(shared() / "teehistorian" / "v2_ddnet201_dm1.teehistorian")
        assert whole_inputs.error is None
        assert rec.inputs().num_rows < whole_inputs.inputs().num_rows
        # The rows before the cut are the whole file's first rows.
        n = rec.inputs().num_rows
        cut_rows = rec.inputs().drop_columns(["path"])
        whole_rows = whole_inputs.inputs().slice(0, n).drop_columns(["path"])
        assert cut_rows.equals(whole_rows)
    finally:
        cut_path.unlink(missing_ok=True)


def test_scan_gives_the_rows_demokit_export_writes(tmp_path):
    fixtures = shared()
    out = tmp_path / "dataset"
    # negative/ holds two files named like recordings that are none: the export writes
    # their rows and exits 1, the scan has the same rows and warns.
    done = subprocess.run([demokit_bin(), "export", fixtures, "-o", out], capture_output=True)
    assert done.returncode == 1 and b"2 failed" in done.stderr, done.stderr
    with pytest.warns(demokit.PartialReadWarning, match="2 of"):
        scanned = demokit.scan(fixtures)
    files = ds.dataset(out / "files", format="parquet", partitioning="hive").to_table()
    partition_of = {
        path: (fmt, date)
        for path, fmt, date in zip(
            files["path"].to_pylist(), files["format"].to_pylist(), files["date"].to_pylist()
        )
    }
    for name in demokit.Recording.TABLES:
        ours = scanned.table(name)
        # The default layout is Hive-partitioned (format=.../date=.../): the files hold the
        # table's own columns, the partition columns come from the paths.
        assert ours.schema == ds.dataset(out / name, format="parquet").schema, name
        dataset = ds.dataset(out / name, format="parquet", partitioning="hive")
        assert dataset.schema.names[-1] == "date", name
        partitioned = dataset.to_table(columns=["path", "format", "date"])
        for path, fmt, date in zip(*(partitioned[c].to_pylist() for c in partitioned.schema.names)):
            assert partition_of[path] == (fmt, date), (name, path)
        exported = dataset.to_table(columns=ours.schema.names).cast(ours.schema)
        # The CLI reads files in parallel: compare the rows as sets of rows.
        key = [(c, "ascending") for c in ours.schema.names if c != "modified_ns"]
        ours = ours.drop_columns(["modified_ns"]) if name == "files" else ours
        exported = exported.drop_columns(["modified_ns"]) if name == "files" else exported
        key = [(c, o) for c, o in key if c in ours.schema.names]
        # The CLI names files by the path it was given; the scan by the same directory.
        assert decoded(ours).sort_by(key).equals(decoded(exported).sort_by(key)), name


def test_every_real_recording_opens_without_error():
    opened = 0
    for folder in ("twdemo", "teehistorian", "source"):
        for path in sorted((shared() / folder).iterdir()):
            try:
                rec = demokit.open(path)
            except demokit.DemokitError as e:
                # GoldSrc demos share the .dem suffix and are another format.
                assert "GoldSrc" in e.message, (path, e)
                continue
            assert rec.error is None, (path, rec.error)
            assert rec.files().num_rows == 1
            opened += 1
    assert opened == recordings_in_facts()
    # The files kept for their faults are named as such, at their offsets.
    for path in sorted((shared() / "negative").iterdir()):
        if path.suffix in (".demo", ".teehistorian", ".dem"):
            try:
                rec = demokit.open(path)
            except demokit.DemokitError as e:
                assert e.offset is not None, (path, e)
                continue
            assert rec.error is None or rec.error.offset is not None


def test_events_select_their_kinds_and_name_their_players():
    rec = demokit.scan(shared())
    events = rec.events()
    kinds = set(events.column("kind").to_pylist())
    assert {"join", "kill"} <= kinds, kinds
    kills = rec.events(kind="kill")
    assert 0 < kills.num_rows < events.num_rows
    assert set(kills.column("kind").to_pylist()) == {"kill"}
    assert all(name is not None for name in kills.column("weapon_name").to_pylist())
    both = rec.events(kind=["join", "leave"])
    assert set(both.column("kind").to_pylist()) <= {"join", "leave"}
    assert both.num_rows == sum(1 for k in events.column("kind").to_pylist() if k in ("join", "leave"))
    # Units ride in the schema.
    assert rec.ticks().schema.field("x").metadata[b"unit"] == b"world units (Teeworlds/DDNet: 32 to a tile; Source: Hammer units)"


def test_a_source_demo_gives_its_players_chat_and_typed_game_events():
    rec = demokit.open(ROOT / "fixtures" / "source" / "l4d1_37_v1005.dem")
    assert rec.players().column("name").to_pylist() == ["adok1n", "Francis", "Louis", "Bill"]
    events = rec.game_events()
    assert events.num_rows > 0
    teams = events.filter(pc.equal(events.column("name"), "player_team"))
    assert teams.num_rows == 4
    assert json.loads(teams.column("values")[0].as_py())["team"] == 2
    chat = demokit.open(ROOT / "fixtures" / "source" / "l4d2_2100_v2220.dem").chat()
    assert chat.column("name").to_pylist() == ["aciidz"]


def test_ticks_read_only_the_selection():
    folders = [shared() / "twdemo", shared() / "teehistorian"]
    checked = 0
    for path in sorted(p for folder in folders for p in folder.iterdir()):
        rec = demokit.open(path)
        whole = rec.ticks()
        if whole.num_rows == 0:
            continue
        ids = sorted(set(whole.column("client_id").to_pylist()))
        ticks = whole.column("tick").to_pylist()
        first, last = min(ticks), max(ticks)
        middle = range(first + (last - first) // 3, first + 2 * (last - first) // 3)
        selected = rec.ticks(columns=["tick", "x", "y"], players=ids[:1], ticks=middle)
        assert selected.column_names == ["tick", "x", "y"]
        expected = [
            (row["tick"], row["x"], row["y"])
            for row in whole.to_pylist()
            if row["client_id"] == ids[0] and row["tick"] in middle
        ]
        got = list(zip(*(selected.column(c).to_pylist() for c in ("tick", "x", "y"))))
        assert got == expected, path
        # The same selection of a scan filters the table it read.
        scanned = demokit.read_bytes(path.read_bytes(), str(path)).ticks(
            columns=["tick", "x", "y"], players=ids[:1], ticks=middle
        )
        assert scanned.to_pylist() == selected.to_pylist(), path
        checked += 1
    # Every demo and teehistorian file of the corpus holds ticks rows.
    assert checked == (13 if FULL_CORPUS else 9)
    with pytest.raises(demokit.UsageError):
        demokit.open(FIXTURE).ticks(columns=["no_such_column"])


def test_threads_read_at_the_same_time():
    paths = [FIXTURE] * 8
    if (SHARED / "facts.json").is_file():
        paths += sorted((SHARED / "twdemo").glob("*.demo"))
    expected = {p: demokit.open(p).ticks().num_rows for p in set(paths)}
    seen = {}
    errors = []

    def work(p):
        try:
            seen[(threading.get_ident(), p)] = demokit.open(p).ticks().num_rows
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(p,)) for p in paths]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for (_, p), rows in seen.items():
        assert rows == expected[p]


def test_the_readme_example_runs():
    readme = (ROOT / "python" / "README.md").read_text()
    code = readme.split("```python\n", 1)[1].split("```", 1)[0]
    # The example scans "recordings/": point it at the fixtures.
    code = code.replace('"recordings/"', repr(str(ROOT / "fixtures")))
    old = os.getcwd()
    os.chdir(ROOT)
    try:
        exec(compile(code, "README.md", "exec"), {})
    finally:
        os.chdir(old)


def test_rewrite_gives_the_same_bytes_for_every_format(tmp_path):
    inputs = [FIXTURE]
    if (SHARED / "facts.json").is_file():
        inputs += [
            SHARED / "teehistorian" / "v2_ddnet201_dm1.teehistorian",
            next(p for p in sorted((SHARED / "source").iterdir()) if p.suffix == ".dem"
                 and demokit.detect_format(p.read_bytes()[:16]) == "source"),
        ]
    for i, path in enumerate(inputs):
        out = tmp_path / f"out-{i}{path.suffix}"
        stats = demokit.rewrite(path, out)
        assert isinstance(stats, dict) and "error" not in stats, (path, stats)
        assert out.read_bytes() == path.read_bytes(), path


def test_compressed_recordings_read_as_the_plain_file(tmp_path):
    import bz2
    import gzip
    import lzma

    plain = demokit.open(FIXTURE)
    for name, compress in [("gz", gzip.compress), ("bz2", bz2.compress), ("xz", lzma.compress)]:
        # Told by the magic bytes, whatever the name.
        path = tmp_path / f"fixture-{name}.bin"
        path.write_bytes(compress(FIXTURE.read_bytes()))
        rec = demokit.open(path)
        assert rec.error is None, name
        assert rec.header["counts"] == plain.header["counts"], name
        for table in demokit.Recording.TABLES:
            if table == "files":  # names the file and its sizes
                continue
            assert rec.table(table).drop_columns(["path"]).equals(
                plain.table(table).drop_columns(["path"])
            ), (name, table)
        out = tmp_path / f"out-{name}.demo"
        demokit.rewrite(path, out)
        assert out.read_bytes() == FIXTURE.read_bytes(), name
        # An output named for a codec is written in it.
        packed = tmp_path / f"out.demo.{name}"
        demokit.rewrite(FIXTURE, packed)
        decompress = {"gz": gzip.decompress, "bz2": bz2.decompress, "xz": lzma.decompress}[name]
        assert decompress(packed.read_bytes()) == FIXTURE.read_bytes(), name


def test_edits_never_overwrite_unless_asked_and_never_the_input(tmp_path):
    out = tmp_path / "out.demo"
    out.write_bytes(b"keep me")
    with pytest.raises(demokit.DemokitError) as caught:
        demokit.rewrite(FIXTURE, out)
    assert "exists" in caught.value.message
    assert out.read_bytes() == b"keep me"
    demokit.rewrite(FIXTURE, out, overwrite=True)
    assert out.read_bytes() == FIXTURE.read_bytes()
    copy = tmp_path / "copy.demo"
    copy.write_bytes(FIXTURE.read_bytes())
    with pytest.raises(demokit.DemokitError):
        demokit.repair(copy, copy, overwrite=True)
    assert copy.read_bytes() == FIXTURE.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy.demo", "out.demo"]


def test_repair_trim_and_convert_give_files_that_open(tmp_path):
    data = FIXTURE.read_bytes()
    cut = tmp_path / "cut.demo"
    cut.write_bytes(data[: len(data) - 37])
    repaired = tmp_path / "repaired.demo"
    report = demokit.repair(cut, repaired)
    assert report["chunks_kept"] > 0
    assert demokit.open(repaired).error is None
    assert demokit.open(repaired).header["length"] == report["new_length"]

    header = demokit.open(FIXTURE).header
    first, last = header["first_tick"], header["last_tick"]
    trimmed = tmp_path / "trimmed.demo"
    report = demokit.trim(FIXTURE, trimmed, ticks=(first + 10, "1s"))
    rec = demokit.open(trimmed)
    assert rec.error is None
    assert rec.header["first_tick"] == first + 10
    assert rec.header["last_tick"] <= first + 50
    with pytest.raises(demokit.DemokitError):
        demokit.trim(FIXTURE, tmp_path / "reversed.demo", ticks=(last, first))
    # A range is the same ticks as (from, to), its end left out as Python's are.
    as_range = tmp_path / "range.demo"
    demokit.trim(FIXTURE, as_range, ticks=range(first + 10, rec.header["last_tick"] + 1))
    assert as_range.read_bytes() == trimmed.read_bytes()
    for bad in (range(first, first), range(first, last, 2), [first, last]):
        with pytest.raises(demokit.UsageError):
            demokit.trim(FIXTURE, tmp_path / "bad.demo", ticks=bad)

    v5 = tmp_path / "v5.demo"
    demokit.convert(FIXTURE, v5, 5)
    assert demokit.open(v5).header["version"] == 5
    back = tmp_path / "v6.demo"
    demokit.convert(v5, back, 6)
    assert back.read_bytes() == FIXTURE.read_bytes()


def test_a_teehistorian_file_trims_to_the_same_positions():
    path = shared() / "teehistorian" / "v2_ddnet201_dm1.teehistorian"
    whole = demokit.open(path)
    first = whole.header["first_tick"]
    last = whole.header["last_tick"]
    start = first + (last - first) // 3
    out = Path(os.environ.get("TMPDIR", "/tmp")) / f"demokit-trim-{os.getpid()}.teehistorian"
    try:
        report = demokit.trim(path, out, ticks=(start, last))
        assert isinstance(report, dict)
        cut = demokit.open(out)
        assert cut.error is None
        cols = [c for c in whole.ticks().schema.names if c != "path"]
        theirs = whole.ticks().filter(pc.greater_equal(whole.ticks()["tick"], start))
        assert cut.ticks().select(cols).equals(theirs.select(cols))
    finally:
        out.unlink(missing_ok=True)


def test_the_recorder_writes_a_file_that_reads_back(tmp_path):
    path = tmp_path / "game.teehistorian"
    header = {"version": "2", "map_name": "dm1", "server_name": "python test"}
    with demokit.TeehistorianRecorder(path, header) as rec:
        rec.record_player_join(0)
        for tick in range(1, 51):
            rec.begin_tick(tick)
            rec.begin_players()
            rec.record_player(0, 100 + tick, 200)
            rec.end_players()
            rec.begin_inputs()
            rec.record_player_input(0, 1, [tick % 3 - 1, 10, 20, 0, 0, 0, 0, 0, 0, 0])
            rec.end_inputs()
            rec.end_tick()
        rec.record_player_drop(0, "bye")
        with pytest.raises(demokit.DemokitError):
            rec.end_players()  # not in this phase: refused, nothing written
    opened = demokit.open(path)
    assert opened.error is None
    assert opened.header["map_name"] == "dm1"
    assert opened.header["finished"] is True
    ticks = opened.ticks()
    assert ticks.num_rows == 50
    assert ticks.column("x").to_pylist() == [100 + t for t in range(1, 51)]
    assert opened.inputs().num_rows > 0
    with pytest.raises(demokit.DemokitError) as caught:
        demokit.TeehistorianRecorder(path, header)
    assert "exists" in caught.value.message


def test_scrub_gives_pseudonyms_and_drops_chat(tmp_path):
    names = {}
    for folder, name in (("twdemo", "v6_ddnet201_server_dm1.demo"),
                         ("teehistorian", "v2_ddnet201_dm1.teehistorian")):
        path = shared() / folder / name
        out = tmp_path / name
        mapping_path = tmp_path / f"{name}.mapping.json"
        report = demokit.scrub(path, out, key=b"secret", chat="all", mapping=mapping_path)
        # The report holds no name; the mapping is only in its file, for its owner.
        assert "mapping" not in report and report["pseudonyms"] > 0, (name, report)
        assert mapping_path.stat().st_mode & 0o777 == 0o600
        mapping = json.loads(mapping_path.read_text())["names"]
        assert mapping, name
        assert not any(original in json.dumps(report) for original in mapping), name
        scrubbed = demokit.open(out)
        assert scrubbed.error is None
        players = scrubbed.players().column("name").to_pylist()
        assert players and all(p.startswith("player-") for p in players if p), (name, players)
        if folder == "twdemo":
            assert scrubbed.chat().num_rows == 0
        data = out.read_bytes()
        for original in mapping:
            if len(original.encode()) >= 3:
                assert original.encode() not in data, (name, original)
        names.update(mapping)
        again = tmp_path / f"again-{name}"
        demokit.scrub(out, again, key=b"secret", chat="all")
        assert again.read_bytes() == data
    with pytest.raises(demokit.DemokitError):
        demokit.scrub(FIXTURE, tmp_path / "x.demo", credentials=True)
    with pytest.raises(demokit.DemokitError):
        demokit.scrub(FIXTURE, tmp_path / "y.demo", chat="loud")


def test_source_demos_trim_and_scrub(tmp_path):
    """A Source demo cut to a range of its ticks keeps its players' positions there, and
    scrubbed it keeps no player's name, SteamID or chat."""
    demo = ROOT / "fixtures" / "source" / "l4d2_2100_v2220.dem"
    cut = tmp_path / "cut.dem"
    report = demokit.trim(demo, cut, ticks=(200, 400))
    assert report["from"] >= 200 and report["to"] <= 400, report
    assert demokit.validate(cut)["accepted"] is True
    whole = demokit.open(demo).ticks()
    part = demokit.open(cut).ticks()
    assert part.num_rows > 0
    # The cut's tick 0 is the original's report["from"]: the same positions there.
    shift = report["from"]
    ours = {(t + shift, c): (x, y) for t, c, x, y in zip(*(part.column(n).to_pylist() for n in ("tick", "client_id", "x", "y")))}
    theirs = {(t, c): (x, y) for t, c, x, y in zip(*(whole.column(n).to_pylist() for n in ("tick", "client_id", "x", "y")))}
    shared_keys = [k for k in ours if k in theirs and k[0] > shift]
    assert shared_keys and all(ours[k] == theirs[k] for k in shared_keys)

    out = tmp_path / "scrubbed.dem"
    report = demokit.scrub(demo, out, all=True)
    assert report["pseudonyms"] == 1 and "aciidz" not in json.dumps(report)
    scrubbed = demokit.open(out)
    assert scrubbed.players().column("name").to_pylist() == ["player-1"]
    assert scrubbed.chat().num_rows == 0
    data = out.read_bytes()
    assert b"aciidz" not in data and b"STEAM_1:0:47005136" not in data


def test_render_returns_a_picture():
    """``Recording.render``: PNG bytes within the size asked for (the picture takes the
    game's shape, one side the box's), SVG on request, and the refusals of a teehistorian
    file without its map as ``UsageError``."""
    demo = shared() / "twdemo" / "v6_ddnet201_server_dm1.demo"
    png = demokit.open(demo).render(size=(320, 200))
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    # The IHDR chunk: width and height, big-endian; colour type 3, a palette.
    width = int.from_bytes(png[16:20], "big")
    height = int.from_bytes(png[20:24], "big")
    assert width <= 320 and height <= 200 and (width == 320 or height == 200), (width, height)
    assert png[25] == 3
    svg = demokit.open(demo).render(format="svg", ticks=("1s", "5s"))
    assert svg.startswith(b"<svg")
    teehistorian = shared() / "teehistorian" / "v2_ddnet1261_dm1.teehistorian"
    with pytest.raises(demokit.UsageError, match="does not hold its map"):
        demokit.open(teehistorian).render()
    png = demokit.open(teehistorian).render(map=shared() / "maps" / "dm1_0.6.map")
    assert png[:4] == b"\x89PNG"
    with pytest.raises(demokit.UsageError, match="no player named"):
        demokit.open(demo).render(players=["nobody here"])


def test_a_tick_range_outside_the_recording_is_a_value_error():
    rec = demokit.open(FIXTURE)  # ticks 1000 to 1398
    with pytest.raises(ValueError) as caught:
        rec.ticks(columns=["tick", "x", "y"], players=[0], ticks=range(0, 500))
    assert isinstance(caught.value, demokit.UsageError)
    assert "outside the recording's ticks 1000 to 1398" in caught.value.message, caught.value
    with pytest.raises(demokit.UsageError, match="empty"):
        rec.ticks(ticks=range(1200, 1200))
    # A range that overlaps the recording's ticks is read, even past its end (this
    # fixture has no characters: 0 rows, and no error).
    assert rec.ticks(ticks=range(1390, 2000)).num_rows == 0
    server = demokit.open(shared() / "twdemo" / "v6_ddnet201_server_dm1.demo")
    assert server.ticks(ticks=range(980, 2000)).num_rows > 0
    # The same for a directory's tables.
    scanned = demokit.read_bytes(FIXTURE.read_bytes(), str(FIXTURE))
    with pytest.raises(demokit.UsageError, match="1000 to 1398"):
        scanned.ticks(ticks=range(0, 500))


def test_a_recording_read_in_part_warns(tmp_path):
    data = (shared() / "teehistorian" / "v2_ddnet201_dm1.teehistorian").read_bytes()
    cut = tmp_path / "cut.teehistorian"
    cut.write_bytes(data[: len(data) // 2])
    rec = demokit.open(cut)
    with pytest.warns(demokit.PartialReadWarning, match="read in part") as caught:
        rows = rec.chat().num_rows
    assert len(caught) == 1
    assert rec.error is not None and rec.error.offset is not None
    assert rows >= 0
    # Once per reading: the next table asks no more.
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", demokit.PartialReadWarning)
        rec.players()
    # An error for those who want one.
    with warnings.catch_warnings():
        warnings.simplefilter("error", demokit.PartialReadWarning)
        with pytest.raises(demokit.PartialReadWarning):
            demokit.open(cut).ticks()
    # A directory warns once, naming the files not read whole.
    (tmp_path / "whole.demo").write_bytes(FIXTURE.read_bytes())
    with pytest.warns(demokit.PartialReadWarning, match="1 of 2 files were not read whole") as caught:
        demokit.scan(tmp_path)
    assert len(caught) == 1 and "cut.teehistorian" in str(caught[0].message)


def test_selections_name_what_exists():
    demo = demokit.open(shared() / "twdemo" / "v6_ddnet201_server_dm1.demo")
    # Players by name: every stint of that name.
    by_name = demo.ticks(columns=["tick", "client_id"], players=["mover1"])
    by_id = demo.ticks(columns=["tick", "client_id"], players=[0])
    assert by_name.num_rows > 0 and by_name.equals(by_id)
    with pytest.raises(demokit.UsageError, match="no player named 'mover3': the players are 'mover1', 'mover2'"):
        demo.ticks(players=["mover3"])
    with pytest.raises(demokit.UsageError, match="no player with client id 7: the ids are 0, 1"):
        demo.ticks(players=[7])
    # Event kinds: a misspelt one is an error listing the kinds, never 0 rows.
    assert "kill" in demokit.EVENT_KINDS
    with pytest.raises(demokit.UsageError, match="no event kind 'kil': the kinds are join, leave"):
        demo.events(kind="kil")
    assert demo.events(kind=["join"]).num_rows == 2


def test_a_tick_range_is_written_as_trim_writes_it():
    demo = demokit.open(shared() / "twdemo" / "v6_ddnet201_server_dm1.demo")
    # (from, to), both kept: ticks, seconds from the first tick, open ends.
    as_range = demo.ticks(columns=["tick"], ticks=range(300, 401))
    assert demo.ticks(columns=["tick"], ticks=(300, 400)).equals(as_range)
    first = demo.header["first_tick"]
    by_seconds = demo.ticks(columns=["tick"], ticks=("2s", "3s"))
    ticks = by_seconds["tick"].to_pylist()
    assert ticks and min(ticks) >= first + 100 and max(ticks) <= first + 150, (first, ticks[:3], ticks[-3:])
    assert demo.ticks(columns=["tick"], ticks=(900, None)).num_rows > 0
    # A marker the demo lacks is a ValueError naming it.
    with pytest.raises(demokit.UsageError, match="m1"):
        demo.ticks(ticks=("m1", None))
    # A directory's tables take ticks only.
    with pytest.raises(demokit.UsageError):
        demokit.read_bytes(FIXTURE.read_bytes(), str(FIXTURE)).ticks(ticks=("2s", None))


def selection_bench():
    """The selection benchmark's module (``python/benches/selection.py``): its generator
    writes the 64-player server's file the tests below read a small piece of."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("selection_bench", ROOT / "python" / "benches" / "selection.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Path:
    """300 ticks of the benchmark's 64-player server (about 270 KB)."""
    path = tmp_path_factory.mktemp("server") / "server.teehistorian"
    selection_bench().generate(str(path), ticks=300)
    return path


def test_a_selection_is_the_whole_table_filtered(server):
    plain = selection_bench().plain
    whole = demokit.open(server).ticks()
    assert whole.num_rows > 300 * 60
    client_id, tick = whole["client_id"], whole["tick"]

    def expected(ids, first, last):
        keep = pc.and_(
            pc.is_in(client_id, value_set=pa.array(ids, pa.int32())),
            pc.and_(pc.greater_equal(tick, first), pc.less_equal(tick, last)),
        )
        return whole.filter(keep)

    everyone = list(range(64))
    for players, ticks, ids, first, last in [
        ([3], None, [3], 0, 10**6),
        ("tee 3", None, [3], 0, 10**6),
        ([3, 40, "tee 20"], None, [3, 20, 40], 0, 10**6),
        (None, range(100, 201), everyone, 100, 200),
        (None, (100, 200), everyone, 100, 200),
        (None, (None, 50), everyone, 0, 50),
        (None, (250, None), everyone, 250, 300),
        ([63, 0], (1, 1), [0, 63], 1, 1),
    ]:
        for columns in (None, ["x", "y"], ["tick", "name", "client_id", "x"]):
            opened = demokit.open(server)
            got = opened.ticks(columns=columns, players=players, ticks=ticks)
            want = expected(ids, first, last)
            want = want if columns is None else want.select(columns)
            assert got.num_rows > 0
            assert plain(got).equals(plain(want)), (players, ticks, columns)
            # A directory's or bytes' tables are filtered the same way.
            scanned = demokit.read_bytes(server.read_bytes(), str(server))
            assert plain(scanned.ticks(columns=columns, players=players, ticks=ticks)).equals(plain(want))


def test_a_tick_range_reads_only_up_to_its_end(server, monkeypatch):
    # The reading stops after the range: its `files` row ends there, unfinished.
    read = demokit._demokit.read_file(str(server), ["ticks"], None, (1, 11))
    files = pa.table(read.table("files")).to_pylist()[0]
    assert (files["last_tick"], files["finished"]) == (10, False)
    whole = pa.table(demokit._demokit.read_file(str(server), ["ticks"]).table("files")).to_pylist()[0]
    assert (whole["last_tick"], whole["finished"]) == (300, True)
    assert files["records"] < whole["records"] / 20
    # And nothing passes over the whole file first: no summary, no range resolved by the
    # library for ticks given as numbers.
    def refused(*args):
        raise AssertionError("a pass over the whole file")

    monkeypatch.setattr(demokit._demokit, "summary", refused)
    monkeypatch.setattr(demokit._demokit, "tick_range", refused)
    rec = demokit.open(server)
    assert set(rec.ticks(ticks=range(1, 11))["tick"].to_pylist()) == set(range(1, 11))
    assert rec.ticks(columns=["tick"], players=[5], ticks=(1, 10))["tick"].to_pylist() == list(range(1, 11))
    assert rec.ticks(columns=["tick"], players=[5], ticks=(None, 10)).num_rows == 10


def test_selection_errors_list_what_exists(server):
    rec = demokit.open(server)
    names = demokit.schema("ticks").names
    with pytest.raises(demokit.UsageError) as caught:
        rec.ticks(columns=["x", "z"])
    assert caught.value.message == f"the ticks table has no column 'z': its columns are {', '.join(names)}"
    scanned = demokit.read_bytes(server.read_bytes(), str(server))
    with pytest.raises(demokit.UsageError, match="no column 'z': its columns are path, tick"):
        scanned.ticks(columns=["z"])
    with pytest.raises(demokit.UsageError, match="no player named 'tee 99': the players are 'tee 0', 'tee 1'"):
        rec.ticks(players=["tee 99"])
    with pytest.raises(demokit.UsageError, match="no player with client id 64: the ids are 0, 1, 2, .*, 63$"):
        rec.ticks(players=[64])
    with pytest.raises(demokit.UsageError, match="selects nothing"):
        rec.ticks(players=[])
    with pytest.raises(demokit.UsageError, match="the ticks 400 to 500 are outside the recording's ticks 0 to 300"):
        rec.ticks(players=[3], ticks=(400, 500))
    with pytest.raises(demokit.UsageError, match="the ticks from 301 on are outside the recording's ticks 0 to 300"):
        rec.ticks(ticks=(301, None))
    with pytest.raises(demokit.UsageError, match="empty"):
        rec.ticks(ticks=(200, 100))
    with pytest.raises(demokit.UsageError, match="no event kind 'kil': the kinds are join, leave"):
        rec.events(kind="kil")


def test_events_take_the_selection_ticks_takes():
    demo = demokit.open(shared() / "twdemo" / "v6_ddnet_client_multeasymap_2020.demo")
    events = demo.events()
    rows = events.to_pylist()
    # (A race: every kill is the player's own.)
    kills = [e for e in rows if e["kind"] == "kill"]
    kill, other = kills[0], next(e for e in kills if e["client_id"] != kills[0]["client_id"])
    victim, name = kill["victim"], kill["victim_name"]
    # A player's events: those it did and those done to it; by id or by name (every stint
    # of the name).
    theirs = demo.events(players=victim)
    assert kill in theirs.to_pylist()
    assert theirs.to_pylist() == [e for e in rows if victim in (e["client_id"], e["victim"])]
    players = demo.players().to_pylist()
    ids = {p["client_id"] for p in players if p["name"] == name}
    assert demo.events(players=[name]).to_pylist() == [e for e in rows if ids & {e["client_id"], e["victim"]}]
    first, last = demo.header["first_tick"], demo.header["last_tick"]
    middle = (kill["tick"], other["tick"])
    pair = {victim, other["client_id"]}
    selected = demo.events(kind=["kill", "leave"], players=sorted(pair), ticks=middle)
    expected = [
        e
        for e in rows
        if e["kind"] in ("kill", "leave")
        and pair & {e["client_id"], e["victim"]}
        and middle[0] <= e["tick"] <= middle[1]
    ]
    assert len(expected) >= 2 and selected.to_pylist() == expected
    assert len(expected) < len([e for e in rows if pair & {e["client_id"], e["victim"]}])
    assert demo.events(ticks=range(middle[0], middle[1] + 1)).equals(demo.events(ticks=middle))
    with pytest.raises(demokit.UsageError, match=f"outside the recording's ticks {first} to {last}"):
        demo.events(ticks=(last + 1, last + 100))
    with pytest.raises(demokit.UsageError, match="no player with client id 99: the ids are 0, 1, 2"):
        demo.events(players=[99])
    with pytest.raises(demokit.UsageError, match="no player named 'nobody'"):
        demo.events(players="nobody")
    with pytest.raises(demokit.UsageError, match="empty"):
        demo.events(ticks=range(5, 5))
    # A selection that fits the recording and holds no event is 0 rows, no error.
    assert demo.events(kind="vote_start", ticks=middle).num_rows == 0


def cli_json(command: str, path: Path) -> dict:
    """What ``demokit COMMAND --json PATH`` prints: one line of JSON."""
    done = subprocess.run([demokit_bin(), command, "--json", str(path)], capture_output=True, text=True)
    lines = done.stdout.splitlines()
    assert len(lines) == 1, (command, path, done.stdout, done.stderr)
    return json.loads(lines[0])


def test_info_and_validate_give_what_the_cli_prints(tmp_path):
    import warnings

    cut = tmp_path / "cut.teehistorian"
    cut.write_bytes((shared() / "teehistorian" / "v2_ddnet201_dm1.teehistorian").read_bytes()[:7000])
    folders = ("twdemo", "teehistorian", "source", "maps", "negative")
    paths = [p for folder in folders for p in sorted((shared() / folder).iterdir())]
    paths += [cut, FIXTURE, tmp_path / "missing.demo"]
    checked = {"info": 0, "validate": 0, "errors": 0}
    for path in paths:
        for command, call in (("info", demokit.info), ("validate", demokit.validate)):
            printed = cli_json(command, path)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    got = call(path)
                except demokit.DemokitError as e:
                    # What the tool prints of a file it cannot read: its name and the error.
                    assert printed == {"file": str(path), "error": {"offset": e.offset, "message": e.message}}, (
                        command,
                        path,
                        e,
                    )
                    checked["errors"] += 1
                    continue
            assert got == printed, (command, path)
            # A summary of what came before an error says so.
            assert [w.category for w in caught] == (
                [demokit.PartialReadWarning] if command == "info" and "error" in got else []
            ), (command, path)
            checked[command] += 1
    assert checked["info"] >= 18 and checked["validate"] >= 14 and checked["errors"] >= 8, checked
    assert demokit.info(FIXTURE)["file"] == str(FIXTURE)
    assert demokit.info(FIXTURE)["map_name"] == "demokit_fixture"
    assert demokit.validate(FIXTURE)["accepted"] is False  # its embedded map does not load
    assert demokit.info(shared() / "maps" / "dm1_0.6.map")["crc32"] == "f2159e6e"
    with pytest.raises(demokit.InvalidRecordingError):
        demokit.validate(shared() / "maps" / "dm1_0.6.map")


def test_to_pandas_keeps_nullable_ints_and_sort_by_sorts_dictionary_columns():
    pd = pytest.importorskip("pandas")
    demo = demokit.open(shared() / "twdemo" / "v6_ddnet_client_multeasymap_2020.demo")
    events = demo.events()
    assert 0 < events["victim"].null_count < events.num_rows
    frame = demo.to_pandas("events")
    assert frame["victim"].dtype == pd.Int32Dtype()
    assert frame["victim"].isna().sum() == events["victim"].null_count
    assert frame["victim"].dropna().tolist() == [v for v in events["victim"].to_pylist() if v is not None]
    assert frame["tick"].dtype == pd.Int32Dtype()
    assert events.to_pandas(types_mapper=demokit.pandas_types)["victim"].dtype == pd.Int32Dtype()
    files = demo.to_pandas("files")
    assert files["records"].dtype == pd.UInt64Dtype() and files["finished"].dtype == pd.BooleanDtype()
    assert demokit.pandas_types(pa.string()) is None
    # Sorting by the dictionary-encoded columns (pyarrow's sort_by refuses them).
    ticks = demo.ticks()
    assert pa.types.is_dictionary(ticks.schema.field("name").type)
    ordered = demokit.sort_by(ticks, [("name", "descending"), ("tick", "ascending")])
    assert ordered.schema == ticks.schema
    rows = ticks.to_pylist()
    assert ordered.to_pylist() == sorted(sorted(rows, key=lambda r: r["tick"]), key=lambda r: r["name"], reverse=True)
    assert demokit.sort_by(demo.events(), "name")["name"].to_pylist() == sorted(events["name"].to_pylist())
