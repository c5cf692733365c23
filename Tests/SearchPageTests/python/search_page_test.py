#!/usr/bin/env python3
"""Drives the search page (GET /) in headless Chromium against a running server.

The page must show exactly what the server answers. So every check compares what the page shows
with the same request made directly to the JSON API:
- typing a word one key at a time: the suggestions shown belong to the last keystroke, their
  highlights are the title's UTF-16 ranges, and every keystroke is timed with its shards;
- an answer that arrives late (the page's fetch is wrapped to hold the first response back) is
  dropped, not shown over the newer one;
- picking a completion sets the field's text to it;
- picking a category chip adds the token and sets the text to its replacement text;
- submit shows the exact total and the facets, and "More results" pages to the end with exactly
  the hits the API pages through;
- removing a token chip removes it;
- a malformed request's error is shown, not swallowed.

With --scoped, against a cluster serving the sample as `typeahead local` does by default (the
collections products and departments, the scope `all`), the scope picker instead:
- offers what Describe lists (each scope by its label, then each collection), and the field's
  placeholder is the picked scope's prompt ("Departments and products"), else the default prompt;
- a scoped keystroke shows one section per collection (a heading, its entries with highlights and
  its chips) equal to the API's scoped answer, and the merged completions once;
- picking the products collection shows the unscoped answer;
- a scoped submit shows each section's total and first page, and a section's "More results" pages
  it with a Search naming its collection.

Usage: search_page_test.py --url http://127.0.0.1:PORT --shards N [--scoped] [--screenshot FILE]
Prints one "ok ..." line per check; exits 1 on the first failed check.
"""
import argparse
import json
import shutil
import sys
import tempfile
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

# Holds back the response to the next Suggest for 700 ms, whatever the page aborts: an answer
# that arrives after a newer one (a slow shard, a server that ignored the abort).
DELAY_NEXT_SUGGEST = """
window.__originalFetch = window.__originalFetch || window.fetch;
let held = false;
window.fetch = (url, init) => {
  const answer = window.__originalFetch(url, { ...init, signal: undefined });
  if (!held && String(url).endsWith("/Suggest")) {
    held = true;
    return answer.then((r) => new Promise((resolve) => setTimeout(() => resolve(r), 700)));
  }
  return answer;
};
"""


def api(base, method, body):
    request = urllib.request.Request(base + "/typeahead.v1.Typeahead/" + method, data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def utf16_slice(text, start, end):
    return text.encode("utf-16-le")[2 * start:2 * end].decode("utf-16-le")


class Page:
    def __init__(self, driver, base):
        self.driver = driver
        self.base = base
        self.wait = WebDriverWait(driver, 20)

    def find(self, selector):
        return self.driver.find_element(By.CSS_SELECTOR, selector)

    def all(self, selector):
        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    @property
    def field(self):
        return self.find("#text")

    def clear(self):
        self.field.send_keys(Keys.CONTROL, "a")
        self.field.send_keys(Keys.DELETE)

    def type(self, text):
        for character in text:
            self.field.send_keys(character)

    def shown_for(self, text, picked=None):
        """Waits until the suggestions on screen are the answer for `text` (and the picker's
        `picked` value, when given)."""
        self.wait.until(lambda _: self.find("#suggestions").get_attribute("data-text") == text
                        and (picked is None or self.find("#suggestions").get_attribute("data-picked") == picked))

    def pick(self, value):
        Select(self.find("#scope")).select_by_value(value)

    def tokens(self):
        return [(chip.get_attribute("data-kind"), chip.get_attribute("data-value")) for chip in self.all("#tokens .token")]

    def api_tokens(self):
        return [{"kind": kind, "value": value} for kind, value in self.tokens()]


def check(condition, what):
    if not condition:
        print("FAILED " + what)
        sys.exit(1)
    print("ok " + what)


def entries_and_chips_match(root, expected, what):
    """The entries (ids, highlights) and category chips under `root` are `expected`'s."""
    entries = root.find_elements(By.CSS_SELECTOR, ".entries li, #entries li")
    check([li.get_attribute("data-id") for li in entries] == [e["id"] for e in expected["entries"]],
          f"the entries shown for {what} are the server's ({len(entries)})")
    for li, entry in zip(entries, expected["entries"]):
        marks = [mark.text for mark in li.find_elements(By.TAG_NAME, "mark")]
        wanted = [utf16_slice(entry["title"], h["start"], h["end"]) for h in entry["highlights"]]
        check(marks == wanted, f"{entry['title']!r} highlights {wanted}")
    chips = root.find_elements(By.CSS_SELECTOR, ".chips .chip")
    check([chip.get_attribute("textContent") for chip in chips] == [label(c) for c in expected["categories"]],
          f"the category chips shown for {what} are the server's")


def suggestions_match(page, text):
    expected = api(page.base, "Suggest", {"text": text, "tokens": page.api_tokens()})
    entries_and_chips_match(page.find("#suggestions"), expected, repr(text))
    check([li.text for li in page.all("#completions li")] == [c["text"] for c in expected["completions"]],
          f"the completions shown for {text!r} are the server's")
    check(page.all("#sections .section") == [], f"an unscoped answer for {text!r} shows no sections")
    return expected


def label(counted):
    """A chip's or facet's textContent: the name (an attribute chip's after its kind, "color: Red"),
    then the count in its own span."""
    kind = (counted.get("token") or {}).get("kind", "category")
    name = counted["name"] if kind == "category" else f"{kind}: {counted['name']}"
    return f"{name}{counted['count']}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--shards", type=int, required=True)
    parser.add_argument("--scoped", action="store_true")
    parser.add_argument("--screenshot")
    args = parser.parse_args()
    base = args.url.rstrip("/")

    options = Options()
    options.binary_location = "/usr/bin/chromium"
    # The browser's profile lives as long as the run: removed after the browser quits.
    profile = tempfile.mkdtemp(prefix="typeahead-chromium-")
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1180,820", "--user-data-dir=" + profile):
        options.add_argument(argument)
    try:
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        try:
            (run_scoped if args.scoped else run)(Page(driver, base), args)
        finally:
            driver.quit()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def run(page, args):
    driver = page.driver
    driver.get(page.base + "/")
    check(driver.title == "Typeahead", "the page loads")
    page.wait.until(lambda _: driver.execute_script("return document.documentElement.dataset.described") == "true")
    check(page.field.get_attribute("placeholder") == "Search", "the field shows its prompt")
    check(not page.find("#scope").is_displayed(), "one collection and no scope: no scope picker")

    # Typing one key at a time.
    page.type("boo")
    page.shown_for("boo")
    suggestions_match(page, "boo")
    rows = page.all("#timings tr")
    check(len(rows) >= 1 and rows[0].find_elements(By.TAG_NAME, "td")[0].text == "boo",
          f"the last keystroke is timed ({len(rows)} of 3 answered before being superseded)")
    for row in rows:
        cells = [td.text for td in row.find_elements(By.TAG_NAME, "td")]
        check(float(cells[1]) > 0 and cells[2] == f"{args.shards}/{args.shards}",
              f"keystroke {cells[0]!r}: {cells[1]} ms, shards {cells[2]}")

    # A late answer is dropped.
    page.clear()
    driver.execute_script(DELAY_NEXT_SUGGEST)
    page.field.send_keys("k")
    page.field.send_keys("i")
    page.shown_for("ki")
    WebDriverWait(driver, 10).until(
        lambda _: any(row.find_elements(By.TAG_NAME, "td")[0].text == "k" for row in page.all("#timings tr")))
    time.sleep(0.2)
    check(page.find("#suggestions").get_attribute("data-text") == "ki",
          "the held-back answer for 'k' arrived after the one for 'ki' and was not shown")
    suggestions_match(page, "ki")
    driver.execute_script("window.fetch = window.__originalFetch;")

    # Picking a completion.
    page.clear()
    page.type("boo")
    page.shown_for("boo")
    completions = page.all("#completions li")
    check(len(completions) > 0, "'boo' has completions")
    chosen = completions[-1].text
    completions[-1].click()
    check(page.field.get_attribute("value") == chosen, f"picking the completion {chosen!r} sets the text")
    page.shown_for(chosen)

    # Picking a category chip.
    page.clear()
    page.type("the boo")
    page.shown_for("the boo")
    expected = suggestions_match(page, "the boo")
    chips = page.all("#chips .chip")
    check(len(chips) > 0, "'the boo' offers category chips")
    category = expected["categories"][0]
    chips[0].click()
    check(page.tokens() == [(category["token"]["kind"], category["token"]["value"])],
          f"picking the chip adds the token {category['token']}")
    check(page.field.get_attribute("value") == category["replacementText"],
          f"picking the chip sets the text to {category['replacementText']!r}")
    page.shown_for(category["replacementText"])
    suggestions_match(page, category["replacementText"])

    # Submit, facets and paging to the end.
    page.field.send_keys(Keys.ENTER)
    page.wait.until(lambda _: page.find("#results").is_displayed())
    query = {"text": page.field.get_attribute("value"), "tokens": page.api_tokens()}
    first = api(page.base, "Search", {**query, "pageSize": 10})
    check(page.find("#total").get_attribute("data-total") == str(first["totalHits"]),
          f"submit shows the exact total ({first['totalHits']})")
    check([b.get_attribute("textContent") for b in page.all("#facets .facet")] == [label(f) for f in first["facets"]],
          "the facets are the server's")
    wanted = [hit["id"] for hit in first["hits"]]
    token = first["nextPageToken"]
    while token:
        page_answer = api(page.base, "Search", {**query, "pageSize": 10, "pageToken": token, "facets": False})
        wanted += [hit["id"] for hit in page_answer["hits"]]
        token = page_answer["nextPageToken"]
    check(len(wanted) == first["totalHits"], "the API's pages add up to the total")
    clicks = 0
    while page.find("#more").is_displayed():
        count = len(page.all("#hits li"))
        page.find("#more").click()
        page.wait.until(lambda _: len(page.all("#hits li")) > count or not page.find("#more").is_displayed())
        clicks += 1
    shown = [li.get_attribute("data-id") for li in page.all("#hits li")]
    check(shown == wanted, f"'More results' pages to the end ({clicks} pages more, {len(shown)} hits, the API's order)")
    check(f"from {args.shards} of {args.shards} shards" in page.find("#total").text, "the results say which shards answered")

    # Removing the token chip.
    page.find("#tokens .token button").click()
    check(page.tokens() == [], "the token chip's × removes it")

    # A request the server refuses: its error is shown.
    page.clear()
    driver.execute_script("const f = document.getElementById('text'); f.value = 'x'.repeat(5000);"
                          "f.dispatchEvent(new Event('input'));")
    page.wait.until(lambda _: page.find("#error").is_displayed())
    check("INVALID_ARGUMENT" in page.find("#error").text.upper() or "invalid" in page.find("#error").text.lower(),
          f"an oversized text's error is shown: {page.find('#error').text[:80]!r}")

    # The picture for the README, on a fresh page: a token chip, and suggestions open as the person
    # types.
    driver.get(page.base + "/")
    page.type("boo")
    page.shown_for("boo")
    page.all("#chips .chip")[0].click()
    page.shown_for("")
    page.type("the g")
    page.shown_for("the g")
    if args.screenshot:
        time.sleep(0.2)
        driver.save_screenshot(args.screenshot)
        print("screenshot " + args.screenshot)


def run_scoped(page, args):
    driver = page.driver
    driver.get(page.base + "/")
    page.wait.until(lambda _: driver.execute_script("return document.documentElement.dataset.described") == "true")
    with urllib.request.urlopen(page.base + "/v1/describe", timeout=10) as response:
        describe = json.load(response)
    options = [(option.get_attribute("value"), option.text) for option in page.all("#scope option")]
    check(page.find("#scope").is_displayed()
          and options == [("scope:" + s["name"], s["label"]) for s in describe["scopes"]]
          + [("collection:" + c["name"], c["name"]) for c in describe["collections"]],
          f"the scope picker offers Describe's scopes by label, then its collections: {options}")
    page.pick("scope:all")
    check(page.field.get_attribute("placeholder") == "Departments and products",
          "with the scope 'all' picked the field's prompt is 'Departments and products'")

    # A scoped keystroke: one section per collection, each the API's.
    page.type("gar")
    page.shown_for("gar", "scope:all")
    expected = api(page.base, "Suggest", {"text": "gar", "tokens": [], "scope": "all"})
    sections = page.all("#sections .section")
    shown = [(box.get_attribute("data-collection"), box.find_element(By.TAG_NAME, "h2").get_attribute("textContent"))
             for box in sections]
    check(shown == [("departments", "departments"), ("products", "products")]
          and [s["collection"] for s in expected["sections"]] == ["departments", "products"],
          f"'gar' in the scope 'all' shows a departments and a products section: {shown}")
    for box, section in zip(sections, expected["sections"]):
        entries_and_chips_match(box, section, f"'gar' in {section['collection']}")
    check([li.text for li in page.all("#completions li")] == [c["text"] for c in expected["completions"]],
          "the scoped answer's merged completions are shown once")
    check(page.all("#entries li") == [] and page.all("#chips .chip") == [], "a scoped answer has no top-level entries or chips")
    row = [td.text for td in page.all("#timings tr")[0].find_elements(By.TAG_NAME, "td")]
    total = args.shards * len(expected["sections"])
    check(row[0] == "gar" and row[2] == f"{total}/{total}", f"the scoped keystroke is timed over every section's shards: {row}")

    # The products collection: the unscoped answer.
    page.pick("collection:products")
    check(page.field.get_attribute("placeholder") == describe["defaultPrompt"], "a collection picked: the default prompt")
    page.shown_for("gar", "collection:products")
    suggestions_match(page, "gar")

    # A scoped submit: each section's total and first page; a section pages by its collection.
    page.pick("scope:all")
    page.shown_for("gar", "scope:all")
    page.field.send_keys(Keys.ENTER)
    page.wait.until(lambda _: page.find("#results").is_displayed() and len(page.all("#result-sections .section")) > 0)
    first = api(page.base, "Search", {"text": "gar", "tokens": [], "scope": "all", "pageSize": 10})
    boxes = page.all("#result-sections .section")
    check([b.get_attribute("data-collection") for b in boxes] == [s["collection"] for s in first["sections"]]
          and not page.find("#single").is_displayed(), "a scoped submit shows one result section per collection")
    for box, section in zip(boxes, first["sections"]):
        name = section["collection"]
        check(box.find_element(By.CSS_SELECTOR, ".total").get_attribute("data-total") == str(section["totalHits"]),
              f"the {name} section shows its total ({section['totalHits']})")
        check([li.get_attribute("data-id") for li in box.find_elements(By.CSS_SELECTOR, ".hits li")]
              == [hit["id"] for hit in section["hits"]], f"the {name} section shows its first page")
        check([b.get_attribute("textContent") for b in box.find_elements(By.CSS_SELECTOR, ".facets .facet")]
              == [label(f) for f in section["facets"]], f"the {name} section's facets are the server's")
    page_section(page, "gar", first, "products")

    # An empty text in the scope: every entry of each collection; departments (not the default
    # collection) has a second page too.
    page.clear()
    page.field.send_keys(Keys.ENTER)
    page.wait.until(lambda _: page.driver.execute_script(
        "return document.querySelector('#result-sections .section .total')?.dataset.total")
                    == str(next(c["entries"] for c in describe["collections"] if c["name"] == "departments")))
    everything = api(page.base, "Search", {"text": "", "tokens": [], "scope": "all", "pageSize": 10})
    page_section(page, "", everything, "departments")

    # The picture for the README: the scope picked, and a keystroke's sections.
    driver.get(page.base + "/")
    page.wait.until(lambda _: driver.execute_script("return document.documentElement.dataset.described") == "true")
    page.type("ga")
    page.shown_for("ga", "scope:all")
    if args.screenshot:
        time.sleep(0.2)
        driver.save_screenshot(args.screenshot)
        print("screenshot " + args.screenshot)
    print("ok the scope picker's checks")


def page_section(page, text, first, name):
    """Clicks the `name` section's "More results" once: the hits shown are its first page and then
    the page a Search naming its collection with its next_page_token answers."""
    section = next(s for s in first["sections"] if s["collection"] == name)
    check(section["nextPageToken"] != "", f"the {name} section of {text!r} has a next page")
    second = api(page.base, "Search", {"text": text, "tokens": [], "collection": name, "pageSize": 10,
                                      "pageToken": section["nextPageToken"], "facets": False})
    box = next(b for b in page.all("#result-sections .section") if b.get_attribute("data-collection") == name)
    box.find_element(By.CSS_SELECTOR, ".more").click()
    page.wait.until(lambda _: len(box.find_elements(By.CSS_SELECTOR, ".hits li")) > len(section["hits"])
                    or page.find("#error").is_displayed())
    check([li.get_attribute("data-id") for li in box.find_elements(By.CSS_SELECTOR, ".hits li")]
          == [hit["id"] for hit in section["hits"] + second["hits"]],
          f"the {name} section's 'More results' pages it by naming its collection")


if __name__ == "__main__":
    main()
