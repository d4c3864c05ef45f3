//! Collects every error of an item so the user sees them all in one build.

use std::fmt::Display;

use proc_macro2::Span;
use quote::ToTokens;

#[derive(Default)]
pub struct Diagnostics {
    errors: Vec<syn::Error>,
    /// Where an error about tokens that are not there goes (the item's name): without it,
    /// the error would land at the call site of the macro hop that checks the item, which is
    /// in another item's definition macro.
    pub fallback: Option<Span>,
}

impl Diagnostics {
    /// Records an error spanning `tokens`.
    pub fn error(&mut self, tokens: impl ToTokens, message: impl Display) {
        let tokens = tokens.into_token_stream();
        let error = match self.fallback {
            Some(span) if tokens.is_empty() => syn::Error::new(span, message),
            _ => syn::Error::new_spanned(tokens, message),
        };
        self.errors.push(error);
    }

    pub fn push(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    /// All recorded errors combined into one, or `Ok` when there were none.
    pub fn finish(self) -> syn::Result<()> {
        let mut iter = self.errors.into_iter();
        match iter.next() {
            None => Ok(()),
            Some(mut first) => {
                for e in iter {
                    first.combine(e);
                }
                Err(first)
            }
        }
    }
}
