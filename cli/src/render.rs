//! `demokit render`: a picture of a game, as PNG or SVG. The library lays out the scene
//! ([`Recording::scene`](demokit::recording::Recording::scene)) and draws it; this module
//! reads the map file named on the command line, picks the image kind from the output's
//! name, and writes the picture atomically.

use super::destination::{NamedOutputArgs, write_output};
use super::input::{failure, open_recording};
use super::output::{Output, complain};
use super::{Exit, Outcome, Stop};
use demokit::recording::{Limits, read_input};
use demokit::render::{ImageFormat, RenderOptions};
use std::path::Path;

/// Parses `--size WxH` (e.g. `1280x720`).
pub(crate) fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let refuse = || format!("\"{text}\" is not a size WIDTHxHEIGHT in pixels (e.g. 1280x720)");
    let (w, h) = text.split_once(['x', 'X']).ok_or_else(refuse)?;
    let w: u32 = w.parse().map_err(|_| refuse())?;
    let h: u32 = h.parse().map_err(|_| refuse())?;
    Ok((w, h))
}

/// The image kind: `--format` if given, else the output's extension.
fn image_format(output: &Path, format: Option<ImageFormat>) -> Outcome<ImageFormat> {
    if let Some(format) = format {
        return Ok(format);
    }
    ImageFormat::from_path(output).ok_or_else(|| {
        complain(
            output,
            "cannot tell the image kind from the name: end it with .png or .svg, or give \
             --format png|svg",
        );
        Stop(Exit::Usage)
    })
}

/// `demokit render FILE -o OUT`: draws the recording and writes the picture; says what
/// it drew on stdout (on stderr when the picture goes to stdout).
pub(crate) fn render_file(
    input: &Path,
    output: &NamedOutputArgs,
    map: Option<&Path>,
    maps: Option<&Path>,
    format: Option<ImageFormat>,
    mut options: RenderOptions,
) -> Outcome {
    let format = image_format(output.path(), format)?;
    let destination = output.destination(input)?;
    if let Some(map) = map {
        let bytes = read_input(map, Limits::DEFAULT).map_err(|e| failure(map, &e))?;
        options.map = Some(bytes);
    }
    let recording = open_recording(input)?;
    if let Some(dir) = maps {
        source_maps(&recording, dir, &mut options)?;
    }
    let scene = recording.scene(&options).map_err(|e| failure(input, &e))?;
    let bytes = match format {
        ImageFormat::Png => scene.to_png(),
        ImageFormat::Svg => scene.to_svg().into_bytes(),
    };
    write_output(&destination, &bytes)?;
    let mut out = Output::for_report(destination.is_stdout());
    let marks = scene.marks.len();
    let players = scene.players.len();
    out.write_fmt(format_args!(
        "{}: {}x{}, {} player{}, {} mark{}, {} bytes\n",
        destination.name(),
        scene.width,
        scene.height,
        players,
        if players == 1 { "" } else { "s" },
        marks,
        if marks == 1 { "" } else { "s" },
        bytes.len()
    ))?;
    out.flush()?;
    partial(input, scene.error.as_deref())
}

/// A picture or page of a recording that broke off is written with what came before the
/// break, and says so: the error on stderr, exit status 1.
pub(crate) fn partial(input: &Path, error: Option<&str>) -> Outcome {
    match error {
        None => Ok(()),
        Some(error) => {
            complain(
                input,
                format_args!("read in part, up to the error: {error}"),
            );
            Err(Stop(Exit::Invalid))
        }
    }
}

/// `--maps DIR` for a Source demo: `DIR/MAP.bsp` or `DIR/maps/MAP.bsp`, and the overview
/// `DIR/resource/overview/MAP.txt` with `MAP.png` beside it, MAP the demo's map name. A
/// directory holding neither is refused (exit 2).
pub(crate) fn source_maps(
    recording: &demokit::recording::Recording,
    dir: &Path,
    options: &mut RenderOptions,
) -> Outcome {
    let facts = recording.facts().map_err(|e| failure(dir, &e))?;
    let name = facts.map;
    let usable = !name.is_empty() && !name.contains(['/', '\\']) && name != "..";
    let bsp = [
        dir.join(format!("{name}.bsp")),
        dir.join("maps").join(format!("{name}.bsp")),
    ]
    .into_iter()
    .find(|p| usable && p.is_file());
    let overview_dir = dir.join("resource").join("overview");
    let description = overview_dir.join(format!("{name}.txt"));
    let image = overview_dir.join(format!("{name}.png"));
    if usable && description.is_file() && image.is_file() {
        let text =
            read_input(&description, Limits::DEFAULT).map_err(|e| failure(&description, &e))?;
        let png = read_input(&image, Limits::DEFAULT).map_err(|e| failure(&image, &e))?;
        let overview = demokit::render::OverviewImage::new(png, &String::from_utf8_lossy(&text))
            .map_err(|message| {
                complain(&description, message);
                Stop(Exit::Usage)
            })?;
        options.overview = Some(overview);
    }
    match bsp {
        Some(path) => {
            let bytes = read_input(&path, Limits::DEFAULT).map_err(|e| failure(&path, &e))?;
            options.map = Some(bytes);
        }
        None if options.overview.is_none() => {
            complain(
                dir,
                format_args!(
                    "holds neither {name}.bsp nor maps/{name}.bsp nor \
                     resource/overview/{name}.txt and .png"
                ),
            );
            return Err(Stop(Exit::Usage));
        }
        None => {}
    }
    Ok(())
}
