//! Key names for `press`: `Enter`, `a`, `Control+A`. Parsed here so `windup validate` can
//! reject an unknown key; the engine turns a chord into CDP key events.

/// A key as CDP's `Input.dispatchKeyEvent` wants it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyDef {
    /// The DOM `key` value.
    pub key: String,
    /// The DOM `code` value.
    pub code: String,
    /// The legacy `keyCode`, which many pages still read.
    pub key_code: u32,
    /// The text the key types, when it types one.
    pub text: Option<String>,
}

/// A chord: modifiers held while `key` is pressed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chord {
    /// CDP modifier bits: Alt=1, Control=2, Meta=4, Shift=8.
    pub modifiers: u32,
    /// The modifier keys, in the order written: pressed in this order before `key`.
    pub modifier_keys: Vec<KeyDef>,
    /// The key pressed while the modifiers are held.
    pub key: KeyDef,
}

const NAMED: &[(&str, &str, u32, Option<&str>)] = &[
    ("Enter", "Enter", 13, Some("\r")),
    ("Tab", "Tab", 9, None),
    ("Escape", "Escape", 27, None),
    ("Backspace", "Backspace", 8, None),
    ("Delete", "Delete", 46, None),
    ("ArrowUp", "ArrowUp", 38, None),
    ("ArrowDown", "ArrowDown", 40, None),
    ("ArrowLeft", "ArrowLeft", 37, None),
    ("ArrowRight", "ArrowRight", 39, None),
    ("Home", "Home", 36, None),
    ("End", "End", 35, None),
    ("PageUp", "PageUp", 33, None),
    ("PageDown", "PageDown", 34, None),
    ("Insert", "Insert", 45, None),
    ("Space", "Space", 32, Some(" ")),
    ("Shift", "ShiftLeft", 16, None),
    ("Control", "ControlLeft", 17, None),
    ("Alt", "AltLeft", 18, None),
    ("Meta", "MetaLeft", 91, None),
];

fn named(name: &str) -> Option<KeyDef> {
    if let Some(n) = name
        .strip_prefix('F')
        .and_then(|n| n.parse::<u32>().ok())
        .filter(|n| (1..=12).contains(n))
    {
        return Some(KeyDef {
            key: name.into(),
            code: name.into(),
            key_code: 111 + n,
            text: None,
        });
    }
    NAMED
        .iter()
        .find(|(k, ..)| *k == name)
        .map(|(k, code, key_code, text)| KeyDef {
            key: if *k == "Space" {
                " ".into()
            } else {
                (*k).into()
            },
            code: (*code).into(),
            key_code: *key_code,
            text: text.map(str::to_string),
        })
}

fn single_char(c: char) -> Option<KeyDef> {
    if c.is_control() {
        return None;
    }
    let (code, key_code) = match c {
        'a'..='z' => (
            format!("Key{}", c.to_ascii_uppercase()),
            c.to_ascii_uppercase() as u32,
        ),
        'A'..='Z' => (format!("Key{c}"), c as u32),
        '0'..='9' => (format!("Digit{c}"), c as u32),
        ' ' => ("Space".into(), 32),
        _ => (String::new(), 0),
    };
    Some(KeyDef {
        key: c.to_string(),
        code,
        key_code,
        text: Some(c.to_string()),
    })
}

/// A `press` key that names no key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// Nothing was given.
    #[error("the key is empty")]
    Empty,
    /// A modifier outside Alt, Control, ControlOrMeta, Meta and Shift.
    #[error(
        "unknown modifier `{modifier}` in `{input}`; modifiers are Alt, Control, ControlOrMeta, Meta, Shift"
    )]
    Modifier {
        /// The modifier as written.
        modifier: String,
        /// The whole chord.
        input: String,
    },
    /// A key no keyboard table holds.
    #[error("unknown key `{key}` in `{input}`")]
    Key {
        /// The key as written.
        key: String,
        /// The whole chord.
        input: String,
    },
}

/// Parses `Enter`, `a`, `Control+Shift+K`. `ControlOrMeta` is Control (Linux CI).
pub fn parse_chord(input: &str) -> Result<Chord, KeyError> {
    if input.is_empty() {
        return Err(KeyError::Empty);
    }
    // A lone "+" is the plus key; "Control++" is Control with plus.
    let (mods_part, key_part) = match input.strip_suffix("++") {
        Some(m) => (Some(m), "+"),
        None => match input.rfind('+') {
            Some(i) if i > 0 => (Some(&input[..i]), &input[i + 1..]),
            _ => (None, input),
        },
    };
    let mut modifiers = 0;
    let mut modifier_keys = Vec::new();
    for m in mods_part.into_iter().flat_map(|m| m.split('+')) {
        let (bit, name) = match m {
            "Alt" => (1, "Alt"),
            "Control" | "ControlOrMeta" => (2, "Control"),
            "Meta" => (4, "Meta"),
            "Shift" => (8, "Shift"),
            other => {
                return Err(KeyError::Modifier {
                    modifier: other.to_string(),
                    input: input.to_string(),
                });
            }
        };
        modifiers |= bit;
        modifier_keys.push(named(name).expect("modifiers are in the table"));
    }
    let mut chars = key_part.chars();
    let key = match (chars.next(), chars.next()) {
        (Some(c), None) => single_char(c),
        _ => named(key_part),
    }
    .ok_or_else(|| KeyError::Key {
        key: key_part.to_string(),
        input: input.to_string(),
    })?;
    Ok(Chord {
        modifiers,
        modifier_keys,
        key,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_keys_and_chords() {
        let enter = parse_chord("Enter").unwrap();
        assert_eq!((enter.key.key_code, enter.modifiers), (13, 0));
        let sel = parse_chord("Control+a").unwrap();
        assert_eq!(sel.modifiers, 2);
        assert_eq!(sel.key.code, "KeyA");
        assert_eq!(parse_chord("Shift++").unwrap().key.key, "+");
        assert_eq!(parse_chord("F5").unwrap().key.key_code, 116);
        assert!(parse_chord("Hyper+a").is_err());
        assert!(parse_chord("Entr").is_err());
    }
}
