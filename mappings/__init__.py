"""The single source of v1 -> v2 knowledge: data files, typed models, a validating loader, and the translators built from them."""
from mappings.loader import Mappings, MappingError, default_mappings, load, load_schema

__all__ = ["Mappings", "MappingError", "default_mappings", "load", "load_schema"]
