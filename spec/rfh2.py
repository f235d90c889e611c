"""The RFH2 ``<ibm>`` folder that carries loop-detection fingerprints between queue managers.

Source: 002 §Loop detection fingerprint format ("<ibm> is the name of the folder that holds
the list of routing fingerprints ... using the <Rfp> (routing fingerprint) tag"), §How loop
detection works; docs/decisions.md B8 (parse_rfh2 robustness). Moved out of
``spec.pubsub`` (which re-exports every name) to keep that module readable; the rules that
use the fingerprints stay there.
"""

from __future__ import annotations

import struct

__all__ = ["encode_rfp_folder", "decode_rfp_folder", "rfh2_bytes", "parse_rfh2", "MQENC_BIG", "MQENC_LITTLE"]

_RFH2_FIXED = 36  # StrucId, Version, StrucLength, Encoding, CodedCharSetId, Format, Flags, NameValueCCSID


def encode_rfp_folder(fingerprints: tuple[str, ...]) -> str:
    """The ``<ibm>`` folder listing each visited queue manager's fingerprint.

    >>> encode_rfp_folder(("QMA_1", "QMB_1"))
    '<ibm><Rfp>QMA_1</Rfp><Rfp>QMB_1</Rfp></ibm>'
    """
    for fp in fingerprints:
        if not fp or any(c in fp for c in "<>&"):
            raise ValueError(f"fingerprint {fp!r} cannot be carried in an RFH2 folder")
    return "<ibm>" + "".join(f"<Rfp>{fp}</Rfp>" for fp in fingerprints) + "</ibm>"


def decode_rfp_folder(folder: str) -> tuple[str, ...]:
    """The fingerprints of an ``<ibm>`` folder, in order; blanks between tags are allowed
    (002 shows one tag per line). Anything else is refused with ``ValueError``.

    >>> decode_rfp_folder("<ibm>\\n <Rfp>uuid1</Rfp>\\n <Rfp>uuid2</Rfp>\\n</ibm>")
    ('uuid1', 'uuid2')
    """
    text = folder.strip()
    if not (text.startswith("<ibm>") and text.endswith("</ibm>")):
        raise ValueError(f"not an <ibm> folder: {folder!r}")
    body = text[len("<ibm>"):-len("</ibm>")].strip()
    out = []
    while body:
        if not body.startswith("<Rfp>"):
            raise ValueError(f"expected <Rfp> in the <ibm> folder at {body[:20]!r}")
        end = body.find("</Rfp>")
        if end < 0:
            raise ValueError("unterminated <Rfp> in the <ibm> folder")
        fp = body[len("<Rfp>"):end]
        if not fp or "<" in fp:
            raise ValueError(f"bad fingerprint {fp!r} in the <ibm> folder")
        out.append(fp)
        body = body[end + len("</Rfp>"):].strip()
    return tuple(out)


_INTEGER_ORDER = {1: ">", 2: "<"}  # MQENC_INTEGER_NORMAL (big-endian), MQENC_INTEGER_REVERSED
MQENC_BIG, MQENC_LITTLE = 273, 546  # MQENC_NATIVE on big-endian platforms / on x86


def _byte_order(encoding: int) -> str:
    order = _INTEGER_ORDER.get(encoding & 0x0F)
    if order is None:
        raise ValueError(f"unsupported MQRFH2 Encoding {encoding} (integer encoding must be normal or reversed)")
    return order


def rfh2_bytes(fingerprints: tuple[str, ...], encoding: int = MQENC_BIG) -> bytes:
    """A complete MQRFH2 header (version 2, UTF-8 name/value data) whose one folder is the
    ``<ibm>`` fingerprint folder, padded with blanks to a multiple of four bytes as MQ
    requires. Its integers are in the byte order of ``encoding`` (273 big-endian, 546
    little-endian), which is also its Encoding field.

    >>> parse_rfh2(rfh2_bytes(("QMA_1",)))
    ('QMA_1',)
    >>> parse_rfh2(rfh2_bytes(("QMA_1",), MQENC_LITTLE))
    ('QMA_1',)
    """
    order = _byte_order(encoding)
    data = encode_rfp_folder(fingerprints).encode("utf-8")
    data += b" " * (-len(data) % 4)
    length = _RFH2_FIXED + 4 + len(data)
    head = struct.pack(order + "4siiii8sii", b"RFH ", 2, length, encoding, 1208, b"MQSTR   ", 0, 1208)
    return head + struct.pack(order + "i", len(data)) + data


def _header_order(raw: bytes, encoding: int | None) -> str:
    # The header's own integers are in the encoding of the message carrying it (MQMD
    # Encoding); without it, the byte order in which Version reads 2 is the one used
    if encoding is not None:
        return _byte_order(encoding)
    for order in (">", "<"):
        if struct.unpack(order + "i", raw[4:8])[0] == 2:
            return order
    raise ValueError("unsupported MQRFH2 (Version is not 2 in either byte order)")


def parse_rfh2(raw: bytes, encoding: int | None = None) -> tuple[str, ...]:
    """The fingerprints in an MQRFH2 header (002 §Loop detection fingerprint format): the
    ``<ibm>`` folder among its NameValueData folders (others are skipped). ``encoding`` is
    the carrying message's Encoding (the byte order of the header's integers); without it
    the byte order is recognised from Version. A malformed header is refused with
    ``ValueError``: a wrong StrucId or Version, a StrucLength outside the bytes, an Encoding
    that is neither normal nor reversed, a NameValueCCSID other than UTF-8 (1208), or a
    NameValueLength that is negative or runs past StrucLength.
    """
    if len(raw) < _RFH2_FIXED or raw[:4] != b"RFH ":
        raise ValueError("not an MQRFH2 header (StrucId 'RFH ')")
    order = _header_order(raw, encoding)
    _, version, length, data_encoding, _, _, _, nv_ccsid = struct.unpack(order + "4siiii8sii", raw[:_RFH2_FIXED])
    if version != 2 or not _RFH2_FIXED <= length <= len(raw):
        size = f"{len(raw)} byte{'' if len(raw) == 1 else 's'}"
        raise ValueError(f"unsupported MQRFH2 (version {version}, StrucLength {length}, {size})")
    _byte_order(data_encoding)  # the Encoding of what follows must itself be valid
    if nv_ccsid != 1208:
        raise ValueError(f"unsupported MQRFH2 NameValueCCSID {nv_ccsid} (only UTF-8, 1208)")
    pos, found = _RFH2_FIXED, ()
    while pos < length:
        if pos + 4 > length:
            raise ValueError(f"MQRFH2 truncated: NameValueLength at offset {pos} runs past StrucLength {length}")
        (n,) = struct.unpack(order + "i", raw[pos:pos + 4])
        if n < 0 or pos + 4 + n > length:
            raise ValueError(f"MQRFH2 NameValueLength {n} at offset {pos} is outside StrucLength {length}")
        folder = raw[pos + 4:pos + 4 + n].decode("utf-8").strip()
        if folder.startswith("<ibm>"):
            found = decode_rfp_folder(folder)
        pos += 4 + n
    return found
