"""Made-up pages of a documentation site for the sibling rules (issue 37, "One template,
different pages"): template siblings a reader calls different pages, and twins in two
spellings a reader calls one page. Each page has its URL and ``site``; as plain text or HTML.
The unit tests (tests/ingest/test_sibling_families.py) and the pipeline's test
(tests/integration/test_sibling_pipeline.py) read them.
"""

from __future__ import annotations

import html
import random
from typing import Any

SITE = "help.example.org"


KINDS = ["text", "html"]


def page(doc_id: str, path: str, text: str, kind: str) -> dict[str, Any]:
    doc: dict[str, Any] = {"id": doc_id, "url": f"https://{SITE}/{path}", "site": SITE}
    if kind == "text":
        doc["text"] = text
        return doc
    # The first block is the title and heading; a block that ends a sentence is a paragraph,
    # the others (syntax, tables, code) are preformatted.
    title, *blocks = text.strip().split("\n\n")
    body = []
    for block in blocks:
        if block.rstrip().endswith((".", ":")) and "\t" not in block:
            body.append(f"<p>{html.escape(' '.join(block.split()))}</p>")
        else:
            body.append(f"<pre>{html.escape(block)}</pre>")
    # the site's style sheet, relative to the page's folder: one template at every depth
    css = "../" * path.count("/") + "_static/help.css"
    doc["html"] = (f"<html><head><title>{html.escape(title)}</title>"
                   f'<link rel="stylesheet" href="{css}"></head><body><main>'
                   f"<h1>{html.escape(title)}</h1>{''.join(body)}</main></body></html>")
    return doc


def unlocated(pages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The pages without their URL and ``site``: pages of unknown site."""
    return [{k: v for k, v in p.items() if k not in ("url", "site")} for p in pages]


HEADER = "Office Help 7.4\nHome | Writer | Calc | Impress | Draw | Base | Math\nSearch the help"
FOOTER = "Help content, version 7.4. Licensed under the Mozilla Public License, v. 2.0."


def in_chrome(pages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Plain-text pages inside the site's chrome: its header and footer lines, as a crawler's
    text dump carries them."""
    return [p | {"text": f"{HEADER}\n{p['text']}\n{FOOTER}"} for p in pages]


FUNCTIONS = [("XCOS", "cosine"), ("XCOT", "cotangent"), ("XCOSH", "hyperbolic cosine"),
             ("XSIN", "sine"), ("XSINH", "hyperbolic sine")]


FUNCTION_PAGE = """{name} function

Returns the {what} of a complex number.

{name}(Complex Number)

Complex Number is a complex number given as text in the form x+yi or x+yj, or a plain number
when it has no imaginary part. The result is returned as a text string in the same form, with
the imaginary unit of the argument.

={name}("4-3i") returns a complex number in text form.
={name}(2) returns a complex number in text form.

A cell that holds a number which is not a complex number text gives the error #VALUE!, and an
empty argument is read as zero.
"""


def functions(kind: str) -> list[dict[str, Any]]:
    return [page(name, f"calc/func_{name.lower()}.html",
                  FUNCTION_PAGE.format(name=name, what=what), kind)
            for name, what in FUNCTIONS]


STATEMENTS = [("DefBool", "Boolean", "bOK", "TRUE"), ("DefCur", "Currency", "cAmount", "12.50"),
              ("DefDate", "Date", "tStart", "Now()"), ("DefDbl", "Double", "dRatio", "3.75"),
              ("DefInt", "Integer", "iCount", "10"), ("DefLng", "Long", "lTotal", "100000"),
              ("DefObj", "Object", "oDoc", "ThisComponent"),
              ("DefVar", "Variant", "vAny", '"text"')]


STATEMENT_PAGE = ("""{name} Statement

If no type-declaration character or keyword is given, the {name} statement sets the default
data type of variables by a range of letters.

Defxxx Characterrange1[, Characterrange2[,...]]

Characterrange: letters that give the range of variables whose default data type you set.

xxx: the keyword of the default variable type:

Keyword\tDefault variable type
""" + "".join(f"{n}\t{k}\n" for n, k, _, _ in STATEMENTS) + """
' Prefix definitions for variable types:
""" + "".join(f"{n} {v[0]}\n" for n, _, v, _ in STATEMENTS) + """Sub Example{name}
    {var} = {value} ' {var} is an implicit {kind} variable
End Sub
""")


def statements(kind: str) -> list[dict[str, Any]]:
    return [page(name, f"basic/{name.lower()}.html",
                  STATEMENT_PAGE.format(name=name, kind=what, var=var, value=value), kind)
            for name, what, var, value in STATEMENTS]


US = """Customize

Opens the Customize dialog, where you organize the menus and toolbars and customize the
shortcut keys.

Choose Tools - Customize to open this dialog.
"""


def british(text: str) -> str:
    return (text.replace("Customize", "Customise").replace("customize", "customise")
            .replace("organize", "organise").replace("dialog", "dialogue box"))


def twin(kind: str) -> list[dict[str, Any]]:
    return [page(f"{variant}/customize.html", f"{variant}/text/shared/customize.html", text,
                  kind)
            for variant, text in (("en-US", US), ("en-GB", british(US)))]


VALIDITY_US = """Validity of Cell Contents

For each cell, you can define entries to be valid. Invalid entries are rejected.

Using Cell Contents Validity

Select the cells for which you want to define a new validity rule. Choose Data - Validity and
open the Criteria tab page. In the Allow field, select an option.

After you have determined the conditions for cell validity, you can use the other two tab
pages to create message boxes. On the Error Alert tab page, select the action in case of an
error. If you select "Stop" as the action, invalid entries are not accepted, and the previous
cell contents are retained. Select "Warning" or "Information" to display a dialog in which the
entry can either be canceled or accepted.
"""


def word_forms_twin(kind: str) -> list[dict[str, Any]]:
    """One page in en-US and en-GB, the UK text naming "Cell Content" where the US text names
    "Cell Contents" (one word in two forms), and writing "dialogue box" and "cancelled"."""
    gb = (VALIDITY_US.replace("Cell Contents", "Cell Content")
          .replace("cell contents are", "cell content is").replace("dialog", "dialogue box")
          .replace("canceled", "cancelled"))
    return [page(f"{variant}/validity.html", f"{variant}/text/scalc/guide/validity.html", text,
                 kind)
            for variant, text in (("en-US", VALIDITY_US), ("en-GB", gb))]


CONVERSIONS = [("CLng", "a long integer", "Long"), ("CSng", "data type Single", "Single"),
               ("CInt", "an integer", "Integer"), ("CDbl", "data type Double", "Double")]


CONVERSION_PAGE = """{name} Function

Converts any string or numeric expression to {what}.

Syntax:

{name} (Expression As Variant) As {kind}

Return value:

{kind}

Parameters:

Expression: Any string or numeric expression that you want to convert. To convert a string
expression, the number must be entered using a dot as the decimal point and a comma as the
thousands separator (for instance 123,456.78), which may differ from your language settings.

Error codes:

5 Invalid procedure call

Example:

Sub ExampleConvert
    MsgBox {name}(1234.5678)
    MsgBox {name}("1234.5678")
End Sub
"""


def conversions(kind: str) -> list[dict[str, Any]]:
    return [page(name, f"basic/{name.lower()}.html",
                  CONVERSION_PAGE.format(name=name, what=what, kind=k), kind)
            for name, what, k in CONVERSIONS]


OPERATORS = [("+", "Adds or combines two expressions", "Sum"), ("/", "Divides two values",
                                                                  "Quotient"),
             ("-", "Subtracts two values", "Difference"), ("*", "Multiplies two values",
                                                          "Product")]


OPERATOR_PAGE = """"{op}" Operator

{what}.

Syntax:

Result = Expression1 {op} Expression2

Parameters:

Result: Any numerical expression that contains the result of the operation.

Expression1, Expression2: Any numerical expressions that you want to combine with the operator.
The expressions are evaluated from left to right, and a string that holds a number is converted
before the operation.

Example:

Sub Example{name}
    Print 8 {op} 4
    Print 8 {op} 2
End Sub
"""


def operators(kind: str) -> list[dict[str, Any]]:
    return [page(name, f"basic/op_{name.lower()}.html",
                  OPERATOR_PAGE.format(op=op, what=what, name=name), kind)
            for op, what, name in OPERATORS]


INDEXES = ["Illustration Index", "Index of Tables", "Alphabetical Index", "Table of Objects"]


INDEX_PAGE = """Index

The following options are available when you select the {name} as the index type.

Choose Insert - Table of Contents and Index - Type tab (when {name} is the selected type).

Type and Title

Specify the type and title of the index. Select the type of index that you want to insert or
edit. The options available on this tab depend on the index type that you select. If the cursor
is in an index when you open the dialog, you can then edit that index.

Title

Enter a title for the selected index.

Protected against manual changes

Prevents the contents of the index from being changed. Manual changes that you make to an
index are lost when the index is refreshed. If you want the cursor to scroll through a
protected area, choose Tools - Options - Writer - Formatting Aids, and then select the Enable
cursor check box in the Protected Areas section.
"""


def indexes(kind: str) -> list[dict[str, Any]]:
    return [page(name, f"writer/index_{i}.html", INDEX_PAGE.format(name=name), kind)
            for i, name in enumerate(INDEXES)]


#: One toolbar documented under two modules: the same buttons, and each module's own.
TOOLBARS = [("calc", "The Image bar is displayed when you insert or select an image in a sheet.",
             ["Anchor", "Allows you to switch between the anchoring options of the image.",
              "Bring to Front", "Moves the selected object to the top of the stacking order."]),
            ("impress", "Use the Image bar to set the contrast and brightness options for the "
                        "selected graphic object.",
             ["Shadow", "Adds a shadow to the selected picture on the slide.",
              "Reset", "Restores the picture to the size it had when you inserted it."])]


TOOLBAR_PAGE = """Image Bar

{intro}

Image Filter

This icon on the Image bar opens the Image Filter bar, where you can use various filters on the selected picture.

Graphics Mode

Lists view attributes for the selected graphic object. The embedded or linked graphic object in the current file will not be changed, only the view of the object.

Color

With the Color toolbar you can edit some properties of the selected object.

Transparency

Specifies the transparency in the graphic object. Values from 0% (fully opaque) to +100% (fully transparent) are possible.

Crop

Allows to crop the display of an inserted picture. Only the display gets cropped, the inserted picture is not changed.

{own}
"""


def toolbars(kind: str) -> list[dict[str, Any]]:
    return [page(f"{module}/image_bar", f"{module}/main0214.html",
                 TOOLBAR_PAGE.format(intro=intro, own="\n\n".join(own)), kind)
            for module, intro, own in TOOLBARS]


#: The letters of a generated reference's index of file members: on each page, the members
#: whose names start with the letter, each with a link to the header that declares it.
MEMBERS = [("f", "FileHandle", "XMLFileMgr.hpp"), ("l", "LocationHint", "XMLSchemaDescription.hpp"),
           ("s", "StreamReader", "XMLStreamMgr.hpp")]


def member_index(letter: str, member: str, header: str, kind: str) -> dict[str, Any]:
    """An index page of one letter, as Doxygen writes it: the sentence every index page
    repeats, the letter, and the one member of the letter as a name and a link."""
    intro = "Here is a list of all file members with links to the files they belong to:"
    doc: dict[str, Any] = {"id": f"globals_{letter}", "url": f"https://{SITE}/api/globals_{letter}.html",
                           "site": SITE}
    if kind == "text":
        doc["text"] = f"Lib: File Members\n\n{intro}\n\n- {letter} -\n\n{member} : {header}"
        return doc
    doc["html"] = (f"<html><head><title>Lib: File Members</title><link rel='stylesheet' "
                   f"href='../_static/doxygen.css'></head><body><div id='nav'><a href='/'>Main "
                   f"Page</a></div><div class='contents'><p>{intro}</p><h3>- {letter} -</h3>"
                   f"<ul><li>{member} : <a href='{header}.html'>{header}</a></li></ul></div>"
                   f"<footer>Generated by Doxygen</footer></body></html>")
    return doc


def gallery(title: str) -> dict[str, Any]:
    nav = "".join(f'<li><a href="/{i}.html">Chapter {i}</a></li>' for i in range(12))
    return {"id": title, "url": f"https://{SITE}/media/{title.lower().replace(' ', '_')}.html",
            "site": SITE,
            "html": f"<html><head><title>{title}</title><link rel='stylesheet' "
                    f"href='../_static/help.css'></head><body><header><p>Office Help"
                    f"</p></header><nav><ul>{nav}</ul></nav><div id='display'>"
                    f"<p><img src='a.png'></p></div><footer><p>Help content, version 7.4. "
                    f"Licensed under the Mozilla Public License.</p></footer></body></html>"}


COLOR_US = """COLOR

Returns a numeric value calculated by a combination of three colors (red, green and blue) and
the alpha channel, in the RGBA color system. The result depends on the color system used by
your computer.

Syntax

COLOR(Red; Green; Blue [; Alpha])

Example

=COLOR(255;255;255;1) returns 4294967295.

=COLOR(0;0;255;0) returns 255, and the colorNumber of a cell is read the same way.
"""


#: Man pages of one option family, as ``mandoc -Thtml`` renders them: the title names the page,
#: each section has its ``h1`` ("NAME", "SYNOPSIS", ...) holding a permalink. Two options one
#: suffix apart, each naming the other.
OPTIONS = [("OPT_TIMEOUT", "seconds", "10L", "OPT_TIMEOUT_MS"),
           ("OPT_TIMEOUT_MS", "milliseconds", "10000L", "OPT_TIMEOUT")]

OPTION_SECTIONS = [
    ("NAME", "{name} - timeout for the connect phase"),
    ("SYNOPSIS", "#include <net/net.h>\nint net_setopt(NET *handle, {name}, long timeout);"),
    ("DESCRIPTION", "Pass a long. It should contain the maximum time in {unit} that you allow "
                    "the connection phase to the server to take. This only limits the connection "
                    "phase, it has no impact once it has connected. Set to zero to switch to the "
                    "default built-in connection timeout of 300 seconds."),
    ("", "If both OPT_TIMEOUT(3) and OPT_TIMEOUT_MS(3) are set, the value set last will be "
         "used. The connection phase is complete when the handshakes are done."),
    ("EXAMPLE", "NET *net = net_init();\nif(net) {{\n  /* connect within {count} {unit} */\n"
                "  net_setopt(net, {name}, {arg});\n  net_perform(net);\n}}"),
    ("RETURN VALUE", "Returns NET_OK. Returns an error code when the value is negative or too "
                     "large in milliseconds."),
    ("SEE ALSO", "{other}(3), OPT_LOW_SPEED_LIMIT(3), OPT_LOW_SPEED_TIME(3)"),
]


def man_page(name: str, unit: str, arg: str, other: str) -> dict[str, Any]:
    def block(body: str) -> str:
        text = html.escape(body.format(name=name, unit=unit, arg=arg, count=arg[:-1], other=other))
        return f"<pre>{text}</pre>" if "\n" in body else f'<p class="Pp">{text}</p>'

    sections = "".join(
        '<section class="Sh">'
        + (f'<h1 class="Sh" id="{h}"><a class="permalink" href="#{h}">{h}</a></h1>' if h else "")
        + block(body) + "</section>"
        for h, body in OPTION_SECTIONS)
    return {"id": name, "url": f"https://{SITE}/man/{name}.3.html", "site": SITE,
            "html": f"<html><head><title>{name}(3)</title></head><body>"
                    f'<table class="head"><tr><td>{name}(3)</td><td>net_setopt options</td>'
                    f'<td>{name}(3)</td></tr></table><div class="manual-text">{sections}</div>'
                    f"</body></html>"}


#: A generated reference's index of class members, one page a letter in three families: all the
#: members of the letter ("Lib: Class Members"), its functions only ("... - Functions") and its
#: variables only ("... - Variables"). A text dump opens each page with its title, which every
#: page of its family repeats, then the site's header line: the titles are chrome by count, and
#: a page of all members holds its letter's functions page line for line.
LETTER_MEMBERS = {
    "b": (["beginEntity() : XMLEntityHandler", "bufferSize() : BinInputStream",
           "buildSchema() : SchemaBuilder", "byteOrder() : XMLTranscoder",
           "bindNamespace() : NamespaceContext", "blockSize() : MemoryManager"],
          ["bStandalone : XMLDocumentInfo", "bDeclared : XMLElementDecl"]),
    "c": (["cloneNode() : DOMNode", "compareTo() : XMLString",
           "createElement() : DOMDocument", "characters() : DocumentHandler",
           "clearErrors() : ErrorReporter", "commitChanges() : DOMLSOutput"],
          ["cAttributeCount : XMLAttrList", "cCursorLimit : XMLBuffer"]),
    "n": (["nextToken() : XMLScanner", "normalize() : DOMElement",
           "notationDecl() : DTDHandler", "nodeType() : DOMNodeFilter",
           "newLineSeq() : XMLFormatter", "namespaceURI() : QNameResolver"],
          ["nStringPool : XMLStringPool", "nUnparsedEntities : DTDGrammar"]),
    "w": (["writeNode() : DOMLSSerializer", "warning() : ErrorHandler",
           "whitespaceFacet() : XSSimpleType", "wasCreated() : XMLGrammarPool",
           "wrapBuffer() : MemBufInputSource", "walkTree() : DOMTreeWalker"],
          ["wElementDepth : XMLValidator", "wSchemaVersion : XSModel"]),
}

MEMBER_FAMILIES = {"": "Lib: Class Members", "func_": "Lib: Class Members - Functions",
                   "vars_": "Lib: Class Members - Variables"}


def class_members(kind: str) -> list[dict[str, Any]]:
    """Every page of the three families, as a text dump (``text``: title line, header line, the
    list, a block an entry) or as HTML (the title in ``<title>`` and in the page's header)."""
    pages = []
    for family, title in MEMBER_FAMILIES.items():
        for letter, (functions, variables) in LETTER_MEMBERS.items():
            lines = {"func_": functions, "vars_": variables}.get(family, functions + variables)
            doc: dict[str, Any] = {"id": f"functions_{family}{letter}",
                                   "url": f"https://{SITE}/api/functions_{family}{letter}.html",
                                   "site": SITE}
            if kind == "text":
                doc["text"] = "\n\n".join([f"{title}\nLib 3.2.4", f"- {letter} -", *lines,
                                           "Generated by Doxygen 1.9.4"])
            else:
                items = "".join(f"<li>{html.escape(x)}</li>" for x in lines)
                doc["html"] = (f"<html><head><title>{title}</title><link rel='stylesheet' "
                               f"href='../_static/doxygen.css'></head><body><div id='top'>"
                               f"{title}<br>Lib 3.2.4</div><div class='contents'><h3>- {letter} -"
                               f"</h3><ul>{items}</ul></div><footer>Generated by Doxygen 1.9.4"
                               f"</footer></body></html>")
            pages.append(doc)
    return pages


BOOK_SITE = "book.example"  # a book is a site of its own

BOOK_CHAPTERS = ["Notation", "Lexical structure", "Input format", "Keywords", "Identifiers",
                 "Comments", "Whitespace", "Tokens", "Macros", "Macros By Example",
                 "Procedural Macros", "Crates and source files", "Conditional compilation",
                 "Items", "Modules", "Extern crates", "Use declarations", "Functions",
                 "Type aliases", "Structs", "Enumerations", "Unions", "Constant items",
                 "Static items", "Traits", "Implementations", "External blocks",
                 "Generic parameters", "Associated Items", "Attributes", "Names", "Scopes",
                 "Name resolution", "Type system", "Appendices", "Glossary",
                 "Macro Follow-Set Ambiguity Formal Specification"]


def book_section(chapter: str, kind: str = "html", own: str = "") -> dict[str, Any]:
    """An mdBook page of a book's chapter: the book's table of contents in the sidebar (every
    page's), the book's name as an ``h1`` in the menu bar, then the chapter's ``h1`` in
    ``main`` and its ``own`` text (none: a section's page whose own text is its heading). As
    text, the page as a browser lays it out: the title, the contents, the heading, the text."""
    name = chapter.lower().replace(" ", "-")
    doc: dict[str, Any] = {"id": name, "url": f"https://{BOOK_SITE}/reference/{name}.html",
                           "site": BOOK_SITE}
    if kind == "text":
        doc["text"] = "\n".join([f"{chapter} - The Reference",
                                 *(f"{i} {c}" for i, c in enumerate(BOOK_CHAPTERS, 1)),
                                 "The Reference", chapter, *([own] if own else [])])
        return doc
    toc = "".join(
        f'<li class="chapter-item"><a href="{c.lower().replace(" ", "-")}.html">'
        f'<strong aria-hidden="true">{i}.</strong> {html.escape(c)}</a></li>'
        for i, c in enumerate(BOOK_CHAPTERS, 1))
    body = f"<p>{html.escape(own)}</p>" if own else ""
    doc["html"] = (
        f"<html><head><title>{html.escape(chapter)} - The Reference</title>"
        '<link rel="stylesheet" href="book.css"></head><body>'
        '<nav id="sidebar" class="sidebar" aria-label="Table of contents">'
        f'<ol class="chapter">{toc}</ol></nav><div id="page-wrapper" class="page-wrapper">'
        '<div class="page"><div id="menu-bar" class="menu-bar">'
        '<h1 class="menu-title">The Reference</h1></div>'
        f'<div id="content" class="content"><main><h1 id="{name}">{html.escape(chapter)}</h1>'
        f"{body}</main></div></div></div></body></html>")
    return doc


def book(kind: str) -> tuple[list[dict[str, Any]], list[str]]:
    """A book of 24 chapters with text of their own (a paragraph of words drawn at random) and
    four sections' pages whose own text is their heading, and the sections' ids."""
    rng = random.Random(37)
    chapters = [book_section(c, kind, " ".join(
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
        for _ in range(60)) + ".") for c in BOOK_CHAPTERS[:24]]
    sections = [book_section(c, kind) for c in ("Appendices", "Glossary", "Names", "Scopes")]
    return chapters + sections, [p["id"] for p in sections]


DIAGRAM_SITE = "sql.example"  # a site of its own

DIAGRAMS = [("join-constraint", "join-clause", "expr"), ("join-operator", "join-clause", ""),
            ("compound-operator", "select-stmt", ""), ("ordering-term", "select-stmt", "expr"),
            ("frame-spec", "window-defn", "expr"), ("type-name", "column-def", "signed-number")]

SEE_ALSO = ["lang_aggfunc.html", "lang_altertable.html", "lang_attach.html",
            "lang_createindex.html", "lang_createtable.html", "lang_createtrigger.html",
            "lang_createview.html", "lang_delete.html", "lang_expr.html", "lang_insert.html",
            "lang_returning.html", "lang_select.html", "lang_update.html", "lang_upsert.html"]


def syntax_diagram(name: str, used_by: str, references: str, kind: str) -> dict[str, Any]:
    """A syntax diagram's page of SQLite's documentation: the site's tagline in its header,
    the diagram's name as ``h1``, the diagram (an SVG of the grammar's words), what uses it,
    what it references, and one "See also" list every diagram's page carries. As HTML its main
    content opens with the tagline, which no page calls furniture; as text, with its title."""
    doc: dict[str, Any] = {"id": name, "url": f"https://{DIAGRAM_SITE}/syntax/{name}.html",
                           "site": DIAGRAM_SITE}
    refs = f"References:  {references}" if references else ""
    also = "See also:  " + "  ".join(SEE_ALSO)
    if kind == "text":
        doc["text"] = "\n\n".join(filter(None, [
            f"SQLite Syntax: {name}", "Small. Fast. Reliable.\nChoose any three.", name,
            f"Used by:  {used_by}", refs, also]))
        return doc
    words = "".join(f"<text>{html.escape(w.upper())}</text>" for w in name.split("-"))
    refs_html = (f'References:&nbsp;&nbsp; <a href="./{references}.html">{references}</a><br>'
                 if references else "")
    doc["html"] = (
        f"<html><head><title>SQLite Syntax: {name}</title>"
        '<link href="../sqlite.css" rel="stylesheet"></head><body><div class="nosearch">'
        '<a href="../index.html"><img class="logo" src="../images/banner.gif" alt="SQLite"></a>'
        '<div class="tagline desktoponly">Small. Fast. Reliable.<br>Choose any three.</div>'
        '<div class="menu mainmenu"><ul><li><a href="../index.html">Home</a>'
        '<li><a href="../about.html">About</a><li><a href="../docs.html">Documentation</a>'
        '<li><a href="../download.html">Download</a></ul></div></div>'
        f"<h1 align='center'>{name}</h1><div class='imgcontainer'><svg>{words}</svg></div><br>"
        f'Used by:&nbsp;&nbsp; <a href="./{used_by}.html">{used_by}</a><br>{refs_html}'
        "See also:&nbsp;&nbsp; " + "&nbsp;&nbsp; ".join(
            f'<a href="../{a}">{a}</a>' for a in SEE_ALSO) + "</body></html>")
    return doc


def syntax_diagrams(kind: str) -> list[dict[str, Any]]:
    return [syntax_diagram(*d, kind) for d in DIAGRAMS]


VECTOR_SITE = "gfx.example"  # a site of its own

VECTOR_METHOD_PAGE = """GfxShader.get_arg_vec{n}

Declaration

void
gfx_shader_get_arg_vec{n} (
  GfxShader* shader,
  GBytes* args,
  int idx,
  graphene_vec{n}_t* out_value
)

Description

Gets the value of the uniform idx in the args block.

The uniform must be of vec{n} type.

Parameters

args

Uniform arguments.

The data is owned by the caller of the function.

idx

Type: int

Index of the uniform.

out_value

Location to store the uniform value in.

The data is owned by the caller of the function."""


def vector_methods(kind: str) -> list[dict[str, Any]]:
    """gi-docgen's pages of three methods of one family (``get_arg_vec2``, ``..._vec3``,
    ``..._vec4``): the same text but for one digit, the same in every identifier."""
    out = []
    for n in (2, 3, 4):
        doc = page(f"get_arg_vec{n}", f"method.GfxShader.get_arg_vec{n}.html",
                   VECTOR_METHOD_PAGE.format(n=n), kind)
        doc["url"] = doc["url"].replace(SITE, VECTOR_SITE)
        doc["site"] = VECTOR_SITE
        out.append(doc)
    return out


INDEX_MARKS = ["+", "-", "/", ":", ">", "X"]


def symbol_indexes(kind: str) -> list[dict[str, Any]]:
    """Haddock's index pages of a library by first character ("Index - +", "Index - -", ...,
    "Index - X"): each entry an operator and the modules that export it, the same modules on
    every page, so that the pages' words are the same but for their names."""
    out = []
    for mark in INDEX_MARKS:
        entries = "\n\n".join(
            f"{mark}{op}\n\nControl.Lens.Lens, Control.Lens, Control.Lens.Operators"
            for op in ("~", "=", "%~", "%=", "<~"))
        text = (f"lens-5.0.1: Lenses, Folds and Traversals (Index - {mark})\n\n"
                f"Index - {mark}\n\n{entries}")
        out.append(page(f"index-{ord(mark)}", f"lens/doc-index-{ord(mark)}.html", text, kind))
    return out
