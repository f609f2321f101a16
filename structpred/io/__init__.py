"""File input and output (gzip-aware readers, atomic writes, format errors), model and
cache files (:func:`save_npz` / :func:`load_npz`: arrays plus a JSON header with a format
name and a version; :func:`load_or_compute`: caches keyed by the content of their inputs)
and plotting.

The plotting helpers (:func:`save_figure`, :func:`plot_histories`) import
matplotlib on first use, so that reading and writing files stays light.
"""

from ._cache import (DAMAGED_CACHE_HINT, CacheMismatch, cache_file, damaged_cache,
                     is_cache_folder, key_hash, load_or_compute)
from ._words import _OTHER_SPACE as OTHER_SPACE
from ._files import (MAX_LINE_BYTES, FormatError, binary_kind, naming_read_errors,
                     file_fingerprint, check_encoding, given_encoding, input_encoding,
                     utf8_misread_reason, blank_tail_hint, gz_name, missing_reason,
                     odd_entry_reason, open_text, progress_enabled, read_lines, read_npz,
                     refuse_stdin_model, terminal_stdin_notice)
from ._outputs import (OutputPathError, atomic_write, check_figure_path, check_output_path,
                       folder_refusal, open_output)
from ._encoding import bad_bytes_reason, cjk_encoding_hint, implausible_utf8_reason
from ._bulk import reading_in_bulk
from ._notes import counted, drop_notes, hold_notes, note, release_notes
from ._npz import (CLOCK_KEYS, check_digest, check_format, check_npz_kind, content_digest,
                   damage_reason, drop_clock_readings, load_npz, pack_json, save_npz,
                   unpack_json, with_digest)
from ._words import (CEDILLA_TO_COMMA, IGNORABLE_FORMAT, WORD_RULES, check_visible_tokens,
                     split_tokens, token_form, word_form, word_text)
from ._tokens import MAX_WORDS, check_sentence_pairs, check_token_lists, unwritable_token

__all__ = ["MAX_LINE_BYTES", "terminal_stdin_notice", "WORD_RULES", "reading_in_bulk", "refuse_stdin_model", "odd_entry_reason", "FormatError", "atomic_write", "open_text", "open_output", "read_lines", "read_npz",
           "input_encoding", "check_encoding", "given_encoding", "utf8_misread_reason", "check_visible_tokens",
           "bad_bytes_reason", "cjk_encoding_hint", "implausible_utf8_reason",
           "split_tokens", "word_text", "word_form", "token_form", "IGNORABLE_FORMAT",
           "CEDILLA_TO_COMMA",
           "binary_kind", "naming_read_errors", "OTHER_SPACE", "check_output_path", "check_figure_path",
           "OutputPathError", "missing_reason", "folder_refusal", "gz_name", "blank_tail_hint",
           "file_fingerprint", "progress_enabled", "save_npz", "load_npz", "content_digest",
           "with_digest", "check_digest", "damage_reason", "pack_json", "unpack_json",
           "check_format", "check_npz_kind", "CLOCK_KEYS", "drop_clock_readings", "load_or_compute",
           "CacheMismatch", "cache_file", "is_cache_folder", "key_hash", "check_token_lists",
           "DAMAGED_CACHE_HINT", "damaged_cache",
           "check_sentence_pairs", "unwritable_token", "MAX_WORDS", "save_figure",
           "plot_histories", "literal_text", "note", "hold_notes", "release_notes",
           "drop_notes", "counted"]


def __getattr__(name):
    if name in ("save_figure", "plot_histories", "literal_text", "plt"):
        from . import _plotting

        return getattr(_plotting, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
