"""``--encoding``: text inputs in another encoding than UTF-8 (Latin-1 as in the CoNLL-2002
files, cp1252, GB18030, ...) are read as such by every command that reads text (``tag``,
``topics``, ``align``, ``aer``); outputs stay UTF-8.  Without it such a file is refused
naming the byte, the line and the option; encodings that do not write line ends and ASCII as
single bytes (UTF-16, UTF-32) are refused, and so is ``--encoding`` with a Dask cluster,
whose workers read UTF-8.  Caches keyed by a file's bytes also record the encoding."""

import argparse

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_helpers import one_line_error, run_cli
from structpred.io import check_encoding, file_fingerprint, input_encoding, read_lines

SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])

#: characters of Latin-1 that are not ASCII (no controls: the readers refuse those)
LATIN = st.characters(min_codepoint=0xA1, max_codepoint=0xFF)
WORD = st.text(st.one_of(LATIN, st.sampled_from("abcxyz")), min_size=1, max_size=6)


def _utf8_beyond_ascii(raw):
    """UTF-8 text beyond ASCII: a reading of words that text holds (sweep 21: ``Ì£``, a
    combining mark that starts a word in UTF-8, is Latin-1 text; utf8_evidence)."""
    from structpred.io._encoding import utf8_evidence

    try:
        return not raw.isascii() and utf8_evidence(raw.decode("utf-8"), "latin-1")
    except UnicodeDecodeError:
        return False


@SETTINGS
@given(lines=st.lists(st.lists(WORD, min_size=1, max_size=5).map(" ".join), min_size=1,
                      max_size=6),
       encoding=st.sampled_from(["latin-1", "cp1252", "iso-8859-15"]))
def test_lines_in_another_encoding_read_back_as_written(tmp_path_factory, lines, encoding):
    try:
        data = "".join(line + "\n" for line in lines).encode(encoding)
    except UnicodeEncodeError:
        return   # not every Latin-1 letter is in cp1252 / ISO-8859-15
    path = tmp_path_factory.mktemp("enc") / "f.txt"
    path.write_bytes(data)
    if any(_utf8_beyond_ascii(line.encode(encoding)) for line in lines):
        # a line of 'Ã©' is UTF-8 text read as Latin-1 far more often than Latin-1 text
        from structpred.io import FormatError
        with pytest.raises(FormatError, match="is UTF-8 text"):
            list(read_lines(path, encoding=encoding))
        return
    assert [t for _, t in read_lines(path, encoding=encoding)] == lines
    with input_encoding(encoding):
        assert [t for _, t in read_lines(path)] == lines
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:   # ('Ã©' in Latin-1 is valid UTF-8, and is read as 'é')
        from structpred.io import FormatError
        with pytest.raises(FormatError, match="not valid UTF-8 .*--encoding latin-1"):
            list(read_lines(path))


@pytest.mark.parametrize("name,match", [("utf-16", "line ends and ASCII as single bytes"),
                                        ("utf-32-le", "line ends and ASCII as single bytes"),
                                        ("klingon", "unknown encoding")])
def test_encodings_that_cannot_be_read_by_lines_are_refused(name, match):
    with pytest.raises(ValueError, match=match):
        check_encoding(name)
    assert check_encoding("LATIN1") == "iso8859-1" and check_encoding("gb18030") == "gb18030"


def test_a_file_fingerprint_records_the_encoding_it_is_read_in(tmp_path):
    path = tmp_path / "b.txt"
    path.write_bytes("caf\xe9\n".encode("latin-1"))
    plain = file_fingerprint(path)
    with input_encoding("latin-1"):
        latin = file_fingerprint(path)
    with input_encoding("cp1252"):
        cp = file_fingerprint(path)
    assert "encoding" not in plain and latin["encoding"] == "iso8859-1"
    assert cp["encoding"] == "cp1252" and latin != cp != plain
    assert file_fingerprint(path) == plain


CONLL = "El DA B-NP\nniño NC I-NP\ncomía VM B-VP\n\nLa DA B-NP\ncasa NC I-NP\nes VS B-VP\n\n" * 5


def test_tag_commands_read_latin_1_with_the_option(tmp_path, capsys):
    data = tmp_path / "es.txt"
    data.write_bytes(CONLL.encode("latin-1"))
    model = tmp_path / "m.npz"
    rc, _, err = run_cli(["tag", "train", "--data", str(data), "-o", str(model), "-q"], capsys)
    assert one_line_error(rc, err, "es.txt:2", "not valid UTF-8", "--encoding latin-1"), err
    rc, _, err = run_cli(["tag", "train", "--data", str(data), "-o", str(model), "-q",
                          "--encoding", "latin-1"], capsys)
    assert rc == 0, err
    out = tmp_path / "pred.txt"
    rc, _, err = run_cli(["tag", "predict", "-m", str(model), "-i", str(data), "-o", str(out),
                          "--encoding", "latin-1"], capsys)
    assert rc == 0, err
    assert "niño NC I-NP" in out.read_text(encoding="utf-8")      # the output is UTF-8


def test_topics_train_reads_a_cp1252_file_with_the_option(tmp_path, capsys):
    rows = [("pets", "le café du chat"), ("money", "l’économie et la bourse")] * 6
    data = tmp_path / "d.tsv"
    data.write_bytes("".join(f"{a}\t{b}\n" for a, b in rows).encode("cp1252"))
    rc, _, err = run_cli(["topics", "train", "--data", str(data), "-o", str(tmp_path / "m.npz"),
                          "--model", "sdem-nb", "--encoding", "cp1252"], capsys)
    assert rc == 0, err
    from topics import load_model
    vocab = load_model(tmp_path / "m.npz").vocabulary
    assert "économie" in set(vocab.words_)


def test_encoding_with_a_dask_cluster_is_refused(tmp_path, capsys):
    rc, _, err = run_cli(["align", "train", "--src", "a", "--tgt", "b", "--gold", "g", "-o",
                          str(tmp_path / "m.npz"), "--encoding", "latin-1", "--workers", "2"],
                         capsys)
    assert one_line_error(rc, err, "--encoding", "Dask", "UTF-8"), err


def test_every_text_command_takes_the_option_and_segment_does_not():
    from structpred.cli import build_parser

    parser = build_parser(load="all")
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))

    def leaves(p, path):
        subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            yield path, p
        for a in subs:
            for name, child in a.choices.items():
                yield from leaves(child, path + (name,))

    seen = {}
    for name, child in sub.choices.items():
        for path, leaf in leaves(child, (name,)):
            seen[path] = "--encoding" in leaf._option_string_actions
    for path, has in seen.items():
        assert has == (path[0] in ("tag", "topics", "align", "aer")), path
    assert seen[("tag", "train")] and seen[("aer",)] and not seen[("segment", "train")]
    assert np.sum(list(seen.values())) >= 10
