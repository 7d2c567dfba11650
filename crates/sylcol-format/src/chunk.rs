//! Generic POF0-relocated chunks: framing and probing. In progress.
