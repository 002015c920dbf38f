//! How the page looks, as a link asks: its colours (`theme=light|dark|auto`), whether it paints
//! a background of its own (`background=transparent` lets a panel sit on the host page's
//! colour), and for an embedded panel the figure alone (`chrome=none`) with the sliders named in
//! `controls=` (comma-separated [`Slider`] names). None of these changes a number.

use super::escape::shown;
use rvalue_core::options;

rvalue_core::options! {
    /// The page's colours. `auto` follows the reader's system setting (`prefers-color-scheme`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum Theme("theme") {
        #[default]
        Light = "light",
        Dark = "dark",
        Auto = "auto",
    }

    /// A slider an embedded panel may show (`controls=`), by its element id.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Slider("slider") {
        Alpha = "alpha",
        Beta = "beta",
        Sigma2 = "sigma2",
    }
}

/// The look a link asks for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct View {
    pub theme: Theme,
    /// `background=transparent`: no page or figure background is painted.
    pub transparent: bool,
    /// `chrome=none`: an embedded panel's figure and readout alone.
    pub figure_only: bool,
    /// `controls=`: the sliders a figure-only embed shows (none unless listed), in the order
    /// given, each once.
    pub sliders: Vec<Slider>,
}

impl View {
    /// The link's parameters for this look (none for the default one).
    pub fn to_pairs(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.theme != Theme::default() {
            out.push(format!("theme={}", self.theme.name()));
        }
        if self.transparent {
            out.push("background=transparent".to_string());
        }
        if self.figure_only {
            out.push("chrome=none".to_string());
        }
        if !self.sliders.is_empty() {
            let names: Vec<&str> = self.sliders.iter().map(|s| s.name()).collect();
            out.push(format!("controls={}", names.join(",")));
        }
        out
    }

    /// Reads `key=v` if it is one of this look's parameters: `None` when the key is not, else
    /// the warnings it gave (empty when the value was used).
    pub fn read(&mut self, key: &str, v: &str) -> Option<Vec<String>> {
        let mut warnings = Vec::new();
        match key {
            "theme" => match v.parse::<Theme>() {
                Ok(t) => self.theme = t,
                Err(_) => warnings.push(format!(
                    "'theme={}' is not one of {}: the light theme is used",
                    shown(v),
                    options::expected::<Theme>()
                )),
            },
            "background" => match v {
                "transparent" => self.transparent = true,
                "page" => self.transparent = false,
                _ => warnings
                    .push(format!("'background={}' is neither transparent nor page: ignored", shown(v))),
            },
            "chrome" => match v {
                "none" => self.figure_only = true,
                "full" => self.figure_only = false,
                _ => warnings.push(format!("'chrome={}' is neither none nor full: ignored", shown(v))),
            },
            "controls" => warnings = self.read_sliders(v),
            _ => return None,
        }
        Some(warnings)
    }

    /// `controls=a,b`: the sliders named, an unknown name or a repeat warned of and left out.
    fn read_sliders(&mut self, v: &str) -> Vec<String> {
        let mut warnings = Vec::new();
        self.sliders.clear();
        for name in v.split(',').filter(|n| !n.is_empty()) {
            match name.parse::<Slider>() {
                Ok(s) if !self.sliders.contains(&s) => self.sliders.push(s),
                Ok(_) => {}
                Err(_) => warnings.push(format!(
                    "'controls=' names '{}', not a slider ({}): left out",
                    shown(name),
                    options::expected::<Slider>()
                )),
            }
        }
        warnings
    }

    /// What only the whole link can tell: `chrome=` and `controls=` are an embedded panel's.
    /// `embedded`: whether the link embeds one panel.
    pub fn check(&mut self, embedded: bool) -> Vec<String> {
        let mut warnings = Vec::new();
        if !embedded && (self.figure_only || !self.sliders.is_empty()) {
            warnings.push(
                "'chrome=' and 'controls=' shape an embedded panel (embed=<panel>): ignored".to_string(),
            );
            self.figure_only = false;
            self.sliders.clear();
        }
        if embedded && !self.figure_only && !self.sliders.is_empty() {
            warnings
                .push("'controls=' chooses the sliders of a figure alone (chrome=none): ignored".to_string());
            self.sliders.clear();
        }
        warnings
    }
}
