"""The tuning file: every threshold from one versioned file, and clear errors for a bad one."""

import pytest

from companion.tuning import DEFAULT_PATH, TuningError, default, describe, load, loads


def _text() -> str:
    return DEFAULT_PATH.read_text(encoding="utf-8")


def test_the_committed_file_names_every_field_with_its_unit_and_trade():
    t = default()
    assert t == load(DEFAULT_PATH)
    for d in describe():
        assert d["unit"] and d["trades"]
        assert getattr(getattr(t, d["section"]), d["name"]) is not None


def test_a_missing_field_is_named():
    text = _text().replace("commit_ratio = 8.0", "")
    with pytest.raises(TuningError, match="missing field.*commit_ratio"):
        loads(text)


def test_an_unknown_field_or_section_is_named():
    with pytest.raises(TuningError, match="unknown field.*comit_ratio"):
        loads(_text().replace("commit_ratio", "comit_ratio = 1.0\ncommit_ratio"))
    with pytest.raises(TuningError, match="unknown section.*extra"):
        loads(_text() + "\n[extra]\nx = 1\n")


def test_a_mistyped_value_a_wrong_version_and_bad_toml_are_refused():
    with pytest.raises(TuningError, match="commit_ratio: expected float"):
        loads(_text().replace("commit_ratio = 8.0", 'commit_ratio = "8"'))
    with pytest.raises(TuningError, match="version 2"):
        loads(_text().replace("version = 1", "version = 2"))
    with pytest.raises(TuningError, match="not TOML"):
        loads("version = = 1")


def test_another_file_changes_the_value_and_an_unreadable_one_is_an_error(tmp_path):
    other = tmp_path / "t.toml"
    other.write_text(_text().replace("commit_ratio = 8.0", "commit_ratio = 50"), encoding="utf-8")
    assert load(other).referee.commit_ratio == 50.0
    with pytest.raises(TuningError, match="cannot read"):
        load(tmp_path / "absent.toml")


def test_replace_gives_a_changed_copy():
    t = default()
    u = t.replace(reader={"weak_read": 0.123})
    assert u.reader.weak_read == 0.123 and t.reader.weak_read != 0.123
    assert u.referee == t.referee


def test_python_m_lists_every_field_with_its_unit_and_trade():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "companion.tuning"], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert len(out) == len(describe())
    for line, d in zip(out, describe()):
        assert line.startswith(f"[{d['section']}] {d['name']} ({d['unit']}): ")
