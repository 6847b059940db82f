//! TypeScript text: string literals, regular-expression literals and comments made from
//! untrusted plan data, so that nothing in a plan can end a literal or a comment early.

/// A TypeScript string literal for `s`: JSON's escaping, which TypeScript reads as is, with the
/// two line separators JSON leaves raw escaped too (older parsers end a line at them).
pub(super) fn string(s: &str) -> String {
    let json = serde_json::to_string(s).expect("a string always serialises");
    json.replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// A case-insensitive regular-expression literal matching `text` anywhere: every character
/// with a meaning in a pattern (and `/`, which would end the literal) escaped.
pub(super) fn contains_ignoring_case(text: &str) -> String {
    format!("/{}/i", escape_pattern(text))
}

/// `s` as a pattern that matches exactly `s` (no `u` flag: the identity escapes below are valid).
fn escape_pattern(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' | '^' | '$' | '.' | '|' | '?' | '*' | '+' | '(' | ')' | '[' | ']' | '{' | '}'
            | '/' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// A regular expression built from pattern text with `new RegExp`, the pattern given as a
/// string literal (so no character of it can end a regex literal).
pub(super) fn regexp(pattern: &str) -> String {
    format!("new RegExp({})", string(pattern))
}

/// Text for a `//` comment: line breaks of any kind (JavaScript's include U+2028 and U+2029)
/// become spaces, so the comment cannot end before its line does.
pub(super) fn comment(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\n' | '\r' | '\u{2028}' | '\u{2029}' => ' ',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect::<String>()
        .trim()
        .to_string()
}

/// Text for `//` comments of at most `width` characters (a longer word stands alone), each line
/// made safe by [`comment`].
pub(super) fn comment_lines(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in comment(text).split(' ').filter(|w| !w.is_empty()) {
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// What the in-page engine's `norm` does to a value before matching (and Playwright does to
/// text): drop zero-width spaces, collapse runs of JavaScript whitespace to one space, trim.
pub(super) fn norm(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.chars().filter(|&c| c != '\u{200b}') {
        if is_js_space(c) {
            space = true;
        } else {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.push(c);
        }
    }
    out
}

/// JavaScript's `\s`: WhiteSpace and LineTerminator of ECMA-262.
fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_escape_quotes_backslashes_and_line_breaks() {
        assert_eq!(string(r#"a "b" \c"#), r#""a \"b\" \\c""#);
        assert_eq!(string("x\ny\u{2028}z"), r#""x\ny\u2028z""#);
        assert_eq!(string("</script>`${x}`"), r#""</script>`${x}`""#);
    }

    #[test]
    fn regex_literals_match_the_text_literally() {
        assert_eq!(contains_ignoring_case("a.b/c (d)"), r"/a\.b\/c \(d\)/i");
        assert_eq!(regexp(r"^/a\.b$"), r#"new RegExp("^/a\\.b$")"#);
    }

    #[test]
    fn comments_stay_on_their_line() {
        assert_eq!(comment("a\nb\u{2028}c\rd\u{0}"), "a b c d");
    }

    #[test]
    fn long_comments_wrap_at_words() {
        assert_eq!(
            comment_lines("add two todos\nand complete  the first", 14),
            ["add two todos", "and complete", "the first"]
        );
    }

    #[test]
    fn norm_is_the_page_engines() {
        assert_eq!(
            norm("  Buy\u{200b}   milk\u{a0}\n now \u{feff}"),
            "Buy milk now"
        );
        assert_eq!(norm(""), "");
    }
}
