"""Embeds a kernel object into a hand-written host program.

Replaces every `@OBJECT@` in the template (argv[1]) with the object file's
bytes (argv[2]) as `dense<"0x..."> : vector<Nxi8>`, the form
hal-serialize-executables stores in `#hal.executable.object<{data = ...}>`,
and prints the result.
"""
import sys

template = open(sys.argv[1]).read()
data = open(sys.argv[2], "rb").read()
attr = 'dense<"0x%s"> : vector<%dxi8>' % (data.hex().upper(), len(data))
sys.stdout.write(template.replace("@OBJECT@", attr))
