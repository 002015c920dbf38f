//! What the page writes into its document, as values. The model decides each text, attribute,
//! class and visibility and returns [`Edits`]; the page applies them in one place (`dom::apply`
//! in the root package), so a test reads what a state would show without a browser.
//!
//! An edit names its element by id ([`crate::ids`], or an id the model builds such as a
//! panel's); an id the document lacks is skipped when applied, as a missing element was before.

use std::borrow::Cow;

/// An element's id.
pub type Id = Cow<'static, str>;

/// One write into the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    /// The element's text content.
    Text(Id, String),
    /// The element's content as markup the model built (its texts escaped).
    Html(Id, String),
    /// Attribute `name` set to a value.
    Attr(Id, &'static str, String),
    /// The element's `hidden` property.
    Hidden(Id, bool),
    /// Class `name` switched on or off.
    Class(Id, &'static str, bool),
    /// Class `name` of the document's `<body>` switched on or off.
    BodyClass(&'static str, bool),
    /// A form control's value (an input or a select).
    Value(Id, String),
    /// A checkbox's or radio button's state.
    Checked(Id, bool),
    /// A control's `disabled` attribute.
    Disabled(Id, bool),
}

/// Writes into the document, in the order they are applied.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Edits(pub Vec<Edit>);

impl Edits {
    pub fn new() -> Self {
        Edits::default()
    }

    pub fn text(&mut self, id: impl Into<Id>, text: impl Into<String>) -> &mut Self {
        self.push(Edit::Text(id.into(), text.into()))
    }

    pub fn html(&mut self, id: impl Into<Id>, html: impl Into<String>) -> &mut Self {
        self.push(Edit::Html(id.into(), html.into()))
    }

    pub fn attr(&mut self, id: impl Into<Id>, name: &'static str, value: impl Into<String>) -> &mut Self {
        self.push(Edit::Attr(id.into(), name, value.into()))
    }

    /// Attribute `name` as `"true"` or `"false"` (`aria-pressed`, `data-*` flags).
    pub fn flag(&mut self, id: impl Into<Id>, name: &'static str, on: bool) -> &mut Self {
        self.attr(id, name, if on { "true" } else { "false" })
    }

    pub fn hidden(&mut self, id: impl Into<Id>, hidden: bool) -> &mut Self {
        self.push(Edit::Hidden(id.into(), hidden))
    }

    pub fn class(&mut self, id: impl Into<Id>, name: &'static str, on: bool) -> &mut Self {
        self.push(Edit::Class(id.into(), name, on))
    }

    pub fn body_class(&mut self, name: &'static str, on: bool) -> &mut Self {
        self.push(Edit::BodyClass(name, on))
    }

    pub fn value(&mut self, id: impl Into<Id>, value: impl Into<String>) -> &mut Self {
        self.push(Edit::Value(id.into(), value.into()))
    }

    pub fn checked(&mut self, id: impl Into<Id>, on: bool) -> &mut Self {
        self.push(Edit::Checked(id.into(), on))
    }

    pub fn disabled(&mut self, id: impl Into<Id>, off: bool) -> &mut Self {
        self.push(Edit::Disabled(id.into(), off))
    }

    pub fn push(&mut self, e: Edit) -> &mut Self {
        self.0.push(e);
        self
    }

    /// Appends `other`'s edits after these.
    pub fn extend(&mut self, other: Edits) -> &mut Self {
        self.0.extend(other.0);
        self
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The text the edits leave in element `id`, if they write one (the last write wins).
    pub fn text_of(&self, id: &str) -> Option<&str> {
        self.0.iter().rev().find_map(|e| match e {
            Edit::Text(i, t) if i == id => Some(t.as_str()),
            _ => None,
        })
    }

    /// The markup the edits leave in element `id`, if they write some (the last write wins).
    pub fn html_of(&self, id: &str) -> Option<&str> {
        self.0.iter().rev().find_map(|e| match e {
            Edit::Html(i, h) if i == id => Some(h.as_str()),
            _ => None,
        })
    }

    /// The value the edits leave in attribute `name` of element `id`, if they write one.
    pub fn attr_of(&self, id: &str, name: &str) -> Option<&str> {
        self.0.iter().rev().find_map(|e| match e {
            Edit::Attr(i, n, v) if i == id && *n == name => Some(v.as_str()),
            _ => None,
        })
    }

    /// Whether the edits leave element `id` hidden, if they say.
    pub fn hidden_of(&self, id: &str) -> Option<bool> {
        self.0.iter().rev().find_map(|e| match e {
            Edit::Hidden(i, h) if i == id => Some(*h),
            _ => None,
        })
    }

    /// Whether the edits leave class `name` on element `id`, if they say.
    pub fn class_of(&self, id: &str, name: &str) -> Option<bool> {
        self.0.iter().rev().find_map(|e| match e {
            Edit::Class(i, n, on) if i == id && *n == name => Some(*on),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests;
