"""irdata.croissant on its own: the standard context, dataTypes from pyarrow, the errors it raises."""

import pyarrow as pa
import pytest
from mlcroissant._src.core.rdf import make_context

from irdata.croissant import CONTEXT, RecordSet, croissant_metadata, data_type, schema_columns
from irdata.errors import InputError


def test_the_context_is_the_standard_one_of_croissant_1_0():
    # mlcroissant's own (without a version, that of 1.0): with another, it warns the context is not standard
    assert CONTEXT == make_context()


def test_data_types_from_a_pyarrow_schema():
    schema = pa.schema([("a", pa.string()), ("b", pa.int8()), ("c", pa.float64()), ("d", pa.bool_())])
    assert [(c.name, c.data_type) for c in schema_columns(schema, {"a": "the id"})] == [
        ("a", "sc:Text"), ("b", "sc:Integer"), ("c", "sc:Float"), ("d", "sc:Boolean")]
    assert schema_columns(schema, {"a": "the id"})[0].description == "the id"
    with pytest.raises(ValueError, match="no Croissant dataType for the pyarrow type list<item: int8>"):
        data_type(pa.list_(pa.int8()))


def test_a_missing_file_an_unknown_suffix_and_an_unlisted_file_are_refused(tmp_path):
    args = ("x", "d", "cc-by-4.0", "https://example.org", "1.0.0", None)
    with pytest.raises(InputError, match="release file missing"):
        croissant_metadata(tmp_path, *args, {"a.parquet": None}, [])
    (tmp_path / "a.bin").write_bytes(b"")
    with pytest.raises(ValueError, match="a.bin: no encodingFormat for the suffix '.bin'"):
        croissant_metadata(tmp_path, *args, {"a.bin": None}, [])
    (tmp_path / "a.jsonl").write_text("{}\n")
    with pytest.raises(ValueError, match=r"record sets read files not listed in croissant.json: \['b.jsonl'\]"):
        croissant_metadata(tmp_path, *args, {"a.jsonl": None}, [RecordSet("b", "b.jsonl", ())])
