//! Atomic's positions whose side to move had its king exploded (the game is over): the only
//! positions of a lichess variant with a king missing. Their key is the key of the board with
//! that king put back on the first empty square from a1 on (a *stand-in*), under first byte
//! [`ATOMIC_EXPLODED`]: the standard digits hold it, and a decoder takes the stand-in away. A
//! stand-in anywhere else is no key.

use shakmaty::{Bitboard, Board, Piece, Role, Square, variant::VariantPosition};

use super::{Key, KeyBoard, KeyError, lichess::ATOMIC_EXPLODED};
use crate::position::Position;

/// The square a stand-in king takes on `board`'s empty squares: the first from a1 on.
fn stand_in_square(occupied: Bitboard) -> Option<Square> {
    (!occupied).first()
}

/// Of an Atomic position whose side to move has no king, the board with the stand-in king;
/// `None` for any other position. (No position holds it: the side's pieces may attack the other
/// king, which a king of theirs would make a check.)
pub(super) fn stand_in_board(position: &Position) -> Option<Result<Board, KeyError>> {
    if !matches!(position.shakmaty(), VariantPosition::Atomic(_)) {
        return None;
    }
    let turn = position.turn();
    position.board().king_of(turn).is_none().then_some(())?;
    let mut board = position.board().clone();
    Some(match stand_in_square(board.occupied()) {
        Some(square) => {
            board.set_piece_at(square, Piece { color: turn, role: Role::King });
            Ok(board)
        }
        None => Err(KeyError::NonCanonical("no empty square for the exploded king")),
    })
}

/// Takes the stand-in king away from a decoded board of an [`ATOMIC_EXPLODED`] key, or says
/// why the key is none: the side to move's king must stand on the first empty square.
fn remove_stand_in(board: &mut KeyBoard) -> Result<(), KeyError> {
    let turn = board.turn;
    let kings = board.by_role.king & *board.by_color.get(turn);
    let Some(square) = kings.single_square() else {
        return Err(KeyError::NonCanonical("an exploded king's stand-in is not one king"));
    };
    let without = board.occupied().without(square);
    if stand_in_square(without) != Some(square) {
        return Err(KeyError::NonCanonical("an exploded king's stand-in is not on the first empty square"));
    }
    board.by_role.king.discard(square);
    board.by_color.get_mut(turn).discard(square);
    board.material.0.get_mut(turn).king = 0;
    Ok(())
}

/// The board of a key from its placed digits: an exploded king's key's without its stand-in.
pub(super) fn placed(key: &Key, mut board: KeyBoard) -> Result<KeyBoard, KeyError> {
    if is_exploded(key) {
        remove_stand_in(&mut board)?;
    }
    Ok(board)
}

/// Whether a key is an exploded king's.
pub(super) fn is_exploded(key: &Key) -> bool {
    key.as_bytes()[0] == ATOMIC_EXPLODED
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Variant;

    #[test]
    fn an_exploded_kings_position_keys_and_decodes() {
        // White's queen took on f7: the explosion took Black's king (Black to move).
        let fen = "rnbq1b1r/ppppp1pp/5n2/8/8/8/PPPPPPPP/RNB1KBNR b KQ - 0 4";
        let exploded = Variant::Atomic.parse_fen(fen).expect("an exploded king's position");
        let key = Key::encode(&exploded).expect("a key");
        assert_eq!(key.as_bytes()[0], ATOMIC_EXPLODED);
        assert_eq!(key.decode(), Ok(exploded.clone()));
        let board = key.decode_board(|_, _| true).expect("a board").expect("accepted");
        assert_eq!(board.by_role.king.count(), 1, "the stand-in is taken away");
        assert_eq!(board.material.0.black.king, 0);
        // The stand-in on another empty square is no key.
        let elsewhere = "rnbq1b1r/ppppp1pp/5n2/8/8/8/PPPPPPPP/RNB1KBNR b KQ - 0 4".replace("5n2/8/8", "5n2/8/7k");
        let other = Variant::Atomic.parse_fen(&elsewhere).expect("both kings");
        let mut bytes = *Key::encode(&other).expect("a key").as_bytes();
        bytes[0] = ATOMIC_EXPLODED;
        assert!(matches!(Key::from_bytes(bytes).decode(), Err(KeyError::NonCanonical(_))));
    }
}
