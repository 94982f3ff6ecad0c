"""Damages the kernel library of a linked host program (textual IR).

  edit_library.py MODE FILE   prints FILE with its first kernel library
                              (`fleet.kernel_libraries`) changed by MODE:
    flip      one byte in the middle of the shared object flipped; the
              recorded checksum is left alone (what a damaged file looks like)
    truncate  the shared object cut to its first 256 bytes and the checksum
              recomputed, so only the dynamic loader can tell

The checksum is KernelLibrary.h's: FNV-1a over little-endian 64-bit words,
then the tail bytes.
"""
import re
import struct
import sys


def checksum(data):
    h = 0xcbf29ce484222325
    prime = 0x100000001b3
    mask = (1 << 64) - 1
    words = len(data) // 8
    for (word,) in struct.iter_unpack("<Q", data[:words * 8]):
        h = ((h ^ word) * prime) & mask
    for byte in data[words * 8:]:
        h = ((h ^ byte) * prime) & mask
    return "%016x" % h


mode, path = sys.argv[1], sys.argv[2]
text = open(path).read()
match = re.search(r'data = dense<"0x([0-9A-F]+)"> : vector<(\d+)xi8>', text)
if not match:
    sys.exit("edit_library.py: no kernel library data in " + path)
data = bytearray(bytes.fromhex(match.group(1)))
if mode == "flip":
    data[len(data) // 2] ^= 0x40
elif mode == "truncate":
    data = data[:256]
    text = re.sub(r'checksum = "[0-9a-f]{16}"',
                  'checksum = "%s"' % checksum(bytes(data)), text, count=1)
    match = re.search(r'data = dense<"0x([0-9A-F]+)"> : vector<(\d+)xi8>',
                      text)
else:
    sys.exit("edit_library.py: unknown mode " + mode)
replacement = 'data = dense<"0x%s"> : vector<%dxi8>' % (data.hex().upper(),
                                                       len(data))
sys.stdout.write(text[:match.start()] + replacement + text[match.end():])
