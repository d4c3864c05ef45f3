//! Collects every error of an item so the user sees them all in one build.

use std::fmt::Display;

use quote::ToTokens;

#[derive(Default)]
pub struct Diagnostics {
    errors: Vec<syn::Error>,
}

impl Diagnostics {
    /// Records an error spanning `tokens`.
    pub fn error(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.errors.push(syn::Error::new_spanned(tokens, message));
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
