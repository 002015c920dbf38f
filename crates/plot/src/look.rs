//! How a figure is drawn, besides what it shows: its palette (the page's theme) and where the
//! legend goes.

use plotters::style::RGBColor;
use rvalue_model::theme::{self, Rgb};

/// What a figure draws in colours that are not a method's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Palette {
    /// `None`: nothing is painted under the figure (a transparent embed).
    pub background: Option<RGBColor>,
    pub ink: RGBColor,
    pub grey: RGBColor,
    pub grid: (RGBColor, RGBColor),
    pub edge: RGBColor,
    /// Under the legend's text, whatever the background.
    pub legend: RGBColor,
}

/// A model colour as plotters draws it.
pub fn rgb((r, g, b): Rgb) -> RGBColor {
    RGBColor(r, g, b)
}

impl Palette {
    pub fn of(p: &theme::Palette, transparent: bool) -> Palette {
        Palette {
            background: (!transparent).then(|| rgb(p.background)),
            ink: rgb(p.ink),
            grey: rgb(p.grey),
            grid: (rgb(p.grid.0), rgb(p.grid.1)),
            edge: rgb(p.edge),
            legend: rgb(p.background),
        }
    }

    pub fn light() -> Palette {
        Palette::of(&theme::LIGHT, false)
    }

    /// `c` as this palette draws it: the light palette's text and grey become this one's.
    pub fn colour(&self, c: Rgb) -> RGBColor {
        let light = theme::LIGHT;
        if c == light.ink {
            self.ink
        } else if c == light.grey {
            self.grey
        } else {
            rgb(c)
        }
    }
}

/// How a figure is drawn, besides what it shows.
#[derive(Clone, Copy, Debug)]
pub struct Look {
    /// Tick-label size in backend pixels.
    pub font: u32,
    pub palette: Palette,
    /// The legend in a strip under the plot rather than inside it (a narrow page,
    /// [`NARROW_CSS_PX`](rvalue_model::figure::legend::NARROW_CSS_PX)).
    pub legend_below: bool,
}

impl Look {
    /// The light palette, the legend inside the plot.
    pub fn light(font: u32) -> Look {
        Look { font, palette: Palette::light(), legend_below: false }
    }
}
