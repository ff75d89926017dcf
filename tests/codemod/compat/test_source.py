"""codemod/compat/source.py: the named definitions of a mappings module, with what they use, cut out as source."""
from __future__ import annotations

from pathlib import Path

import pytest

from codemod.compat.source import ConverterSource
from mappings import converters
from mappings.errors import MappingError


def test_a_converter_brings_the_helpers_it_uses_with_their_decorators_and_comments():
    imports, code = ConverterSource(Path(converters.__file__)).render({"runtime_public_ip"})
    assert "def runtime_public_ip(" in code
    assert "@functools.lru_cache(maxsize=65536)\ndef _public_address(" in code  # decorator kept
    assert "# The edge's proxy addresses" in code  # the comment right above a definition kept
    assert '_PROXY_NETWORK = ipaddress.ip_network("100.64.0.0/10")' in code
    assert "def pod_mounts(" not in code  # nothing it does not use
    assert {"import functools", "import ipaddress"} <= set(imports)
    assert "import shlex" not in imports  # only the args converters need it


def test_definitions_keep_their_source_order():
    _, code = ConverterSource(Path(converters.__file__)).render({"set_path", "get_path"})
    assert code.index("def get_path(") < code.index("def set_path(")


def test_names_the_module_imports_from_the_mapping_package_are_left_to_the_template():
    imports, code = ConverterSource(Path(converters.__file__)).render({"first_item"})
    assert not any("mappings" in line for line in imports)
    assert "raise InvalidValue(" in code  # the template defines InvalidValue itself


def test_a_name_the_mapping_refers_to_that_does_not_exist_stops_the_generator():
    with pytest.raises(MappingError, match="defines no no_such_converter"):
        ConverterSource(Path(converters.__file__)).render({"no_such_converter"})
