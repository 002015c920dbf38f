//! A current-value [`Marker`] drawn on a transparent canvas stacked over a figure, with plain
//! canvas calls: no layout read, no text, so a slider move redraws it cheaply. Where it goes
//! is the frame's ([`Frame::marker_line`], [`Frame::marker_dots`]).

use web_sys::CanvasRenderingContext2d;

use crate::css::css_rgb;
use crate::{Frame, Palette};
use rvalue_core::{Error, Result};
use rvalue_model::figure::Marker;

/// Draws `marker` with `ctx` over a figure drawn with `frame`, in `palette`'s colours.
pub fn draw_marker(
    ctx: &CanvasRenderingContext2d,
    frame: &Frame,
    marker: &Marker,
    palette: &Palette,
) -> Result<()> {
    let line = frame.marker_line(marker.x);
    let dash = js_sys::Array::of2(&(Marker::DASH.0 as f64).into(), &(Marker::DASH.1 as f64).into());
    ctx.set_line_dash(&dash).map_err(|_| Error::invalid("setLineDash failed"))?;
    ctx.set_line_width(line.width as f64);
    ctx.set_stroke_style_str(&css_rgb(palette.colour(marker.colour)));
    ctx.begin_path();
    ctx.move_to(line.x, line.top as f64);
    ctx.line_to(line.x, line.bottom as f64);
    ctx.stroke();
    ctx.set_line_dash(&js_sys::Array::new()).map_err(|_| Error::invalid("setLineDash failed"))?;
    for ((px, py), colour) in frame.marker_dots(marker) {
        ctx.set_fill_style_str(&css_rgb(palette.colour(colour)));
        ctx.begin_path();
        ctx.arc(px as f64, py as f64, f64::from(line.radius), 0.0, std::f64::consts::TAU)
            .map_err(|_| Error::invalid("arc failed"))?;
        ctx.fill();
    }
    Ok(())
}
