"""mcsim's NBT: nbtlib tags plus mixed lists, SNBT, NBT paths and `data` command semantics."""

from mcsim.nbt.files import decode_nbt, encode_nbt, read_nbt_file, write_nbt_file
from mcsim.nbt.modify import MODES, merge_compound, modify, string_source
from mcsim.nbt.path import NbtPath, nbt_matches
from mcsim.nbt.snbt import (
    escape_string,
    format_snbt,
    format_snbt_compact,
    from_mecha,
    java_double_str,
    java_float_str,
    macro_text,
    parse_snbt,
)
from mcsim.nbt.values import (
    NbtList,
    Tag,
    copy_tag,
    data_get_value,
    from_python,
    hashmap_order,
    nbt_equal,
    store_value,
    to_python,
)

__all__ = [
    "MODES",
    "NbtList",
    "NbtPath",
    "Tag",
    "copy_tag",
    "data_get_value",
    "decode_nbt",
    "encode_nbt",
    "escape_string",
    "format_snbt",
    "format_snbt_compact",
    "from_mecha",
    "from_python",
    "hashmap_order",
    "java_double_str",
    "java_float_str",
    "macro_text",
    "merge_compound",
    "modify",
    "nbt_equal",
    "nbt_matches",
    "parse_snbt",
    "read_nbt_file",
    "store_value",
    "string_source",
    "to_python",
    "write_nbt_file",
]
