//! A game's header facts in twelve bytes, as the headers family stores them (a value holds those
//! of a run of consecutive games, as the facts family does), and the labels family's keys.
//!
//! ```text
//! bytes 0–3   the Event tag's LabelHash      4–7   the Site tag's LabelHash   (little-endian)
//! bytes 8–11  a u32, little-endian:
//!             bits 0–8  ECO code + 1 (0: none)   9–13  day of the month (0: none)
//!                 14–27  plies                  28–31  zero
//! ```
//!
//! The labels family lists each distinct event and site text once: key = the kind (`e` or
//! `s`), the text's hash (4 bytes, big-endian) and the text; no value.

use crate::model::{Eco, GameHeaders, LabelHash, LabelKind};

/// Bytes of a game's header facts.
pub const HEADERS_LEN: usize = 12;

const DAY_AT: u32 = 9;
const PLIES_AT: u32 = 14;

/// The stored bytes of a game's header facts.
pub fn encode_headers(headers: &GameHeaders) -> [u8; HEADERS_LEN] {
    let eco = headers.eco.map_or(0, |eco| u32::from(eco.index()) + 1);
    let packed = eco | u32::from(headers.day.unwrap_or(0)) << DAY_AT | u32::from(headers.plies) << PLIES_AT;
    let mut bytes = [0; HEADERS_LEN];
    bytes[..4].copy_from_slice(&headers.event.0.to_le_bytes());
    bytes[4..8].copy_from_slice(&headers.site.0.to_le_bytes());
    bytes[8..].copy_from_slice(&packed.to_le_bytes());
    bytes
}

/// Reads stored header facts; `None` unless they are canonical (an ECO code, a day and a length
/// in range, no unused bit set).
pub fn decode_headers(bytes: &[u8]) -> Option<GameHeaders> {
    let bytes: [u8; HEADERS_LEN] = bytes.try_into().ok()?;
    let headers = unpack_headers(bytes)?;
    (encode_headers(&headers) == bytes).then_some(headers)
}

/// Reads stored bytes checked before ([`decode_headers`]).
pub fn unpack_headers(bytes: [u8; HEADERS_LEN]) -> Option<GameHeaders> {
    let word = |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let packed = word(8);
    let eco = match packed & 0x1ff {
        0 => None,
        code => Some(Eco::from_index(code as u16 - 1)?),
    };
    let day = (packed >> DAY_AT & 31) as u8;
    Some(GameHeaders {
        day: (day != 0).then_some(day),
        eco,
        plies: (packed >> PLIES_AT & 0x3fff) as u16,
        event: LabelHash(word(0)),
        site: LabelHash(word(4)),
    })
}

fn kind_byte(kind: LabelKind) -> u8 {
    match kind {
        LabelKind::Event => b'e',
        LabelKind::Site => b's',
    }
}

/// The labels family's key of `text` as a label of `kind`.
pub fn label_key(kind: LabelKind, text: &str) -> Vec<u8> {
    [&[kind_byte(kind)][..], &LabelHash::of(text).0.to_be_bytes(), text.as_bytes()].concat()
}

/// The first byte of every labels key of `kind`.
pub fn label_prefix(kind: LabelKind) -> [u8; 1] {
    [kind_byte(kind)]
}

/// The hash and text of a labels key of `kind`; `None` for another kind or a short key.
pub fn parse_label_key(kind: LabelKind, key: &[u8]) -> Option<(LabelHash, String)> {
    let (&first, rest) = key.split_first()?;
    let hash: [u8; 4] = rest.get(..4)?.try_into().ok()?;
    (first == kind_byte(kind))
        .then(|| (LabelHash(u32::from_be_bytes(hash)), String::from_utf8_lossy(&rest[4..]).into_owned()))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::model::MAX_PLIES;

    proptest! {
        #[test]
        fn headers_round_trip(eco in proptest::option::of(0..Eco::COUNT), day in proptest::option::of(1u8..=31),
                              plies in 0..=MAX_PLIES, event: u32, site: u32) {
            let headers = GameHeaders { day, eco: eco.and_then(Eco::from_index), plies, event: LabelHash(event), site: LabelHash(site) };
            prop_assert_eq!(decode_headers(&encode_headers(&headers)), Some(headers));
        }

        #[test]
        fn arbitrary_headers_bytes_are_canonical_or_refused(bytes in proptest::array::uniform12(any::<u8>())) {
            if let Some(headers) = decode_headers(&bytes) {
                prop_assert_eq!(encode_headers(&headers), bytes);
            }
        }
    }

    #[test]
    fn label_keys_round_trip() {
        let key = label_key(LabelKind::Site, "Wijk aan Zee NED");
        assert_eq!(
            parse_label_key(LabelKind::Site, &key),
            Some((LabelHash::of("Wijk aan Zee NED"), "Wijk aan Zee NED".to_owned()))
        );
        assert_eq!(parse_label_key(LabelKind::Event, &key), None);
        assert_eq!(parse_label_key(LabelKind::Site, b"s12"), None);
    }
}
