from dataclasses import replace
import re
from html.parser import HTMLParser

from refcheck.findings import RunResult
from refcheck.reporters import render
from refcheck.reporters.extent import listed_lines
from refcheck.reporters.html import message

from sample_result import FILE


class Collect(HTMLParser):
    """Ids, links, tags and text of a page, to check structure without string matching."""

    def __init__(self):
        super().__init__()
        self.ids, self.links, self.tags, self.text = set(), [], [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "a":
            self.links.append(attrs.get("href"))

    def handle_data(self, data):
        self.text.append(data)


def parse(page: str) -> Collect:
    c = Collect()
    c.feed(page)
    return c


def test_page_is_self_contained_and_links_resolve(result):
    page = render("html", result)
    doc = parse(page)
    assert "script" not in doc.tags and "link" not in doc.tags and "img" not in doc.tags
    internal = [h for h in doc.links if h.startswith("#")]
    assert {"#f1", "#f2", "#top"} <= set(internal)
    assert all(h[1:] in doc.ids for h in internal)


def test_index_counts_by_rule_and_file(result):
    page = render("html", result)
    assert re.search(r">RC001</a></td><td>leak</td><td class=\"n\">1<", page)
    assert re.search(r">RC003</a></td><td>use-after-release</td><td class=\"n\">1<", page)
    assert re.search(rf'<a href="#f1">{re.escape(FILE)}</a></td><td class="n">2<', page)
    # The sample has one error and one warning: a warning is not a tool error (issue 28).
    assert "2 findings in 1 file; 1 tool error, 1 warning. Checked 3 files, 7 functions." in page


def test_errors_and_warnings_are_told_apart(result):
    page = render("html", result)
    assert "<h3>Tool errors and warnings</h3>" in page
    assert '<li class="warning"><code>src/huge.c</code>: warning: ' in page
    assert "<li><code>src/broken.c:3</code>: error: " in page
    warnings_only = RunResult(errors=[e for e in result.errors if e.severity == "warning"])
    page = render("html", warnings_only)
    assert "0 tool errors, 1 warning." in page and "<h3>Warnings</h3>" in page


def test_character_literals_in_a_branch_note_keep_their_quotes():
    assert message("taking the true branch (c == 'x')") == \
        "taking the true branch (c == &#x27;x&#x27;)"
    assert message("taking the false branch (f(a, 'y') || c != '\\0')") == \
        "taking the false branch (f(a, &#x27;y&#x27;) || c != &#x27;\\0&#x27;)"
    # Names quoted in prose still go to the code font, without the quotes.
    assert message("'t' (loaded from 'self->x') is lost") == \
        "<code>t</code> (loaded from <code>self-&gt;x</code>) is lost"
    assert message("the function's `t` and 'u'") == \
        "the function&#x27;s <code>t</code> and <code>u</code>"


def test_everything_from_the_code_and_analyzer_is_escaped(result):
    page = render("html", result)
    # From the message and a step of the RC003 finding, and from the source listing.
    assert "<b>" not in page
    assert "&lt;b&gt;tc-&gt;size&lt;/b&gt; &amp; more" in page
    assert "&lt;100%, a:b&gt;" in page
    assert 'THError(&quot;a &lt; b &amp; c &gt; d&quot;);' in page
    assert "tc-&gt;size[0]" in page


def test_listing_shows_the_function_with_the_path_in_order(result):
    page = render("html", result)
    first = page[page.index('id="f1"'):page.index('id="f2"')]
    numbers = [int(n) for n in re.findall(r'<span class="num">(\d+)</span>', first)]
    assert numbers == [1, 2, 3]
    notes = re.findall(r'<span class="num">\d+</span>(.*?)</span></td>', first)
    assert notes == ["<code>tc</code> acquired by THFloatTensor_newContiguous",
                     "taking the true branch", "<code>tc</code> is lost here"]
    line_numbers = [int(n) for n in re.findall(r'<td class="ln">(\d+)</td>', first)]
    # The whole function, signature to closing brace; not the include or the comment above.
    assert line_numbers == list(range(4, 14))
    assert '<tr class="primary"><td class="ln">8</td>' in first
    # Each callout sits right under its own line.
    assert re.search(r'<td class="ln">6</td>.*?</tr>\n<tr class="callout">.*?>1</span>', first)
    assert re.search(r'<td class="ln">7</td>.*?</tr>\n<tr class="callout">.*?>2</span>', first)


def test_primary_location_without_a_step_gets_a_closing_callout(result):
    result.findings[0] = replace(result.findings[0], path=result.findings[0].path[:2])
    page = render("html", result)
    first = page[page.index('id="f1"'):page.index('id="f2"')]
    assert re.findall(r'<span class="note (\w+)"><span class="num">(\d+)</span>', first) == [
        ("first", "1"), ("mid", "2"), ("last", "3")]
    assert "is not released on this path</span>" in first


def test_missing_source_lists_the_steps(tmp_path, result):
    result.root = str(tmp_path / "elsewhere")
    page = render("html", result)
    assert "Source not available." in page
    assert '<li value="2"><code>src/generic/THTensorMath.c:7:3</code>: taking the true branch' \
        in page
    assert 'class="src"' not in page


def test_empty_run_says_so():
    page = render("html", RunResult())
    assert "No findings." in page and "0 findings in 0 files" in page


SOURCE = """\
typedef struct THFloatTensor THFloatTensor; THFloatTensor *THFloatTensor_new(void); void use(int);

static int helper(int a) { return a; }

/* doc */
THFloatTensor *
THFloatTensor_newFoo(THFloatTensor *t,
                     long n)
{
  THFloatTensor *r = THFloatTensor_new();
  if (n) {
    const char *s = "}{";  /* } */
    return r;
  }
  return r;
}

extern "C" {
void g(int x) {
  int y = '{';
  use(y);
}
}
""".splitlines()


def function_extent(source: list[str], lo: int, hi: int, tmp_path) -> tuple[int, int]:
    """The lines listed for path lines lo..hi: the extent the parse gives the definition there."""
    from refcheck.frontend.comments import extent_of
    from refcheck.frontend.unit import parse as parse_unit

    path = tmp_path / "x.cpp"
    if not path.exists():
        path.write_text("\n".join(source) + "\n")
    extents = [extent_of(fn) for fn in parse_unit(str(path), []).functions]
    around = next((e for e in extents if e.first <= lo and hi <= e.last), None)
    return listed_lines(around, str(path), len(source), lo, hi)


def test_extent_covers_signature_and_body_despite_braces_in_strings(tmp_path):
    assert function_extent(SOURCE, 10, 13, tmp_path) == (6, 16)
    assert function_extent(SOURCE, 20, 21, tmp_path) == (19, 22)
    assert function_extent(SOURCE, 3, 3, tmp_path) == (3, 3)


def test_extent_falls_back_to_a_window_across_functions(tmp_path):
    assert function_extent(SOURCE, 10, 20, tmp_path) == (7, 23)


def test_extent_includes_a_path_that_starts_at_a_parameter(tmp_path):
    # Step 1 on the signature (a borrowed parameter), the finding inside the body.
    assert function_extent(SOURCE, 7, 13, tmp_path) == (6, 16)
    assert function_extent(SOURCE, 19, 21, tmp_path) == (19, 22)


def test_a_finding_lists_the_extent_its_check_carried(c_unit, tmp_path):
    # The listing comes from the unit's result, not from a scan of the text.
    leaky = "\n".join(SOURCE).replace("    return r;\n  }", "    return 0;\n  }")  # r leaks on line 13
    (leak,) = [f for f in c_unit.check_text(leaky + "\n", "x.cpp").findings if f.function == "THFloatTensor_newFoo"]
    assert (leak.extent.file, leak.extent.first, leak.extent.last) == ("x.cpp", 6, 16)
    page = render("html", RunResult(findings=[leak], root=str(tmp_path)))
    assert '<td class="ln">6</td>' in page and '<td class="ln">16</td>' in page
    assert '<td class="ln">5</td>' not in page and '<td class="ln">17</td>' not in page


def test_tool_error_hints_sit_beside_their_errors(result):
    """As the text reporter's `note: hint:` line: the fix most likely to help, escaped."""
    hinted = replace(result.errors[0], hint='add -I<dir> or include-dirs = ["inc"]')
    page = render("html", replace(result, errors=[hinted, result.errors[1]]))
    item = page[page.index("<li><code>src/broken.c:3</code>"):]
    item = item[:item.index("</li>")]
    assert '<span class="hint">hint: add -I&lt;dir&gt; or include-dirs = [&quot;inc&quot;]</span>' in item
    # An error without a hint gets no empty hint line.
    assert page.count('class="hint"') == 1
