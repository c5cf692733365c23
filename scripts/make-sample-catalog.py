#!/usr/bin/env python3
"""Writes deploy/catalog/sample.jsonl, the small store catalog bundled with Typeahead.

Deterministic: the same script always writes the same file (fixed seed, no set/dict iteration over
unordered data, no dates). Run from anywhere:

    python3 scripts/make-sample-catalog.py            # writes deploy/catalog/sample.jsonl
    python3 scripts/make-sample-catalog.py -o -       # writes to standard output

Each line is one product in the catalog format read by the Catalog module (id, title, category,
weight, aliases, description, attributes). Weights are popularity scores with a long tail and
many ties, as in real shops. Products are made from per-department templates so that typical
partial queries ("red sh", "gard", "kitchen tow", "phone ca") have several sensible answers.
"""
import argparse
import json
import os
import random
import sys

SEED = 20240601

COLORS = [
    "Red", "Blue", "Black", "White", "Green", "Grey", "Navy", "Pink", "Yellow", "Orange", "Brown", "Purple",
    "Beige", "Olive", "Teal", "Burgundy", "Silver", "Coral",
]

# department -> list of (title template, aliases, description, price range[, numbers for {n}]).
# Other template fields ({color}, {size}, {brand}, {wood}, {flavor}, ...) are filled in by fill().
DEPARTMENTS = {
    "Shoes": [
        ("{color} Running Shoes", ["sneakers", "trainers"], "Lightweight running shoes with a cushioned sole.", (39, 149)),
        ("Women's {color} Running Shoes", ["sneakers", "trainers"], "Running shoes with a narrow fit.", (39, 149)),
        ("Men's {color} Running Shoes", ["sneakers", "trainers"], "Running shoes with a wide toe box.", (39, 149)),
        ("{color} Trail Running Shoes", ["trail sneakers"], "Grippy trail shoes for rough terrain.", (59, 169)),
        ("{color} Leather Shoes", ["dress shoes"], "Classic leather shoes for the office.", (49, 199)),
        ("{color} Canvas Sneakers", ["plimsolls"], "Casual canvas sneakers.", (19, 69)),
        ("{color} Walking Shoes", [], "Comfortable shoes for long walks.", (35, 119)),
        ("{color} Hiking Boots", ["trekking boots"], "Waterproof boots with ankle support.", (69, 229)),
        ("{color} Sandals", ["flip flops"], "Open sandals for summer.", (15, 59)),
        ("Kids' {color} Shoes", ["children's shoes"], "Durable shoes for growing feet.", (19, 59)),
        ("Shoe Laces {n} cm", ["laces"], "Replacement laces.", (2, 6), [60, 90, 120, 150]),
        ("Shoe Polish {color}", [], "Cream polish that nourishes leather.", (3, 9)),
    ],
    "Phones": [
        ("{brand} Smartphone {n} GB", ["mobile phone", "cell phone"], "Unlocked smartphone with a bright display.", (149, 1199), [64, 128, 256, 512]),
        ("Smartphone Case {color}", ["phone case", "phone cover"], "Slim protective case.", (7, 39)),
        ("{brand} Phone Case {casing}", ["phone cover"], "Shock-absorbing case.", (9, 49)),
        ("Screen Protector Tempered Glass", ["screen guard"], "Scratch-resistant glass protector.", (5, 19)),
        ("Phone Charger USB-C {n} W", ["charger", "power adapter"], "Fast wall charger.", (9, 39), [20, 25, 30, 45, 65]),
        ("Wireless Charger Pad", ["qi charger"], "Charges phones without cables.", (15, 49)),
        ("Phone Holder for Car", ["car mount"], "Dashboard mount that holds phones steady.", (9, 29)),
        ("Power Bank {n} mAh", ["portable charger", "battery pack"], "Pocket battery for phones.", (15, 69), [5000, 10000, 20000]),
    ],
    "Kitchen": [
        ("Chef's Knife {size}cm", ["cooks knife", "kitchen knife"], "Forged steel knife for everyday cutting.", (19, 149)),
        ("Kitchen Towel Set of {n}", ["tea towels", "dish towels"], "Absorbent cotton towels.", (6, 24), [2, 3, 4, 6]),
        ("Kitchen Towel {color}", ["tea towel", "dish cloth"], "Soft cotton kitchen towel.", (3, 9)),
        ("Kitchen Scale Digital", ["food scale"], "Weighs up to 5 kg in 1 g steps.", (12, 39)),
        ("Kitchen Timer", ["egg timer"], "Magnetic countdown timer.", (5, 15)),
        ("Non-Stick Frying Pan {size}cm", ["skillet", "fry pan"], "Pan with a non-stick coating.", (19, 79)),
        ("Cutting Board {wood}", ["chopping board"], "Sturdy board for chopping.", (9, 49)),
        ("Stainless Steel Saucepan {size}cm", ["pot"], "Saucepan with a glass lid.", (19, 69)),
        ("Coffee Maker {n} Cups", ["coffee machine"], "Drip coffee maker with a warming plate.", (29, 129), [4, 8, 10, 12]),
        ("Electric Kettle {color}", ["water boiler"], "1.7 l kettle with auto shut-off.", (19, 69)),
        ("Kitchen Roll Holder", ["paper towel holder"], "Holder for paper towels.", (8, 25)),
        ("Oven Gloves {color}", ["oven mitts"], "Heat-resistant gloves.", (6, 19)),
    ],
    "Garden": [
        ("Garden Hose {n} m", ["hosepipe", "water hose"], "Kink-free hose with fittings.", (15, 69), [10, 15, 20, 25, 30, 50]),
        ("Garden Hose Reel", ["hose reel"], "Wall-mounted reel for garden hoses.", (25, 89)),
        ("Garden Gloves {color}", ["gardening gloves"], "Thorn-proof gloves.", (5, 19)),
        ("Garden Shears", ["hedge shears"], "Sharp shears for hedges.", (15, 49)),
        ("Pruning Shears", ["secateurs"], "Bypass pruner for branches up to 2 cm.", (12, 45)),
        ("Lawn Mower {n} cm", ["grass cutter"], "Electric lawn mower.", (99, 399), [32, 37, 42, 46]),
        ("Garden Chair {wood}", ["patio chair"], "Weatherproof outdoor chair.", (29, 149)),
        ("Garden Bench {wood}", ["outdoor bench"], "Two-seater bench.", (89, 299)),
        ("Watering Can {n} l", ["watering pot"], "Can with a rose spout.", (7, 29), [5, 10, 12]),
        ("Flower Seeds Mix", ["seeds"], "Wildflower mix for bees.", (2, 9)),
        ("Garden Soil {n} l", ["potting soil", "compost"], "Peat-free soil.", (4, 19), [20, 40, 50, 70]),
        ("Gardening Apron", [], "Apron with tool pockets.", (9, 29)),
    ],
    "Books": [
        ("The {adj} {noun}", [], "A novel.", (6, 24)),
        ("{noun} of the {noun2}", [], "A bestselling novel.", (6, 24)),
        ("Cooking with {flavor}", ["cookbook"], "Recipes for every day.", (12, 35)),
        ("Gardening for Beginners", ["garden book"], "Grow your own vegetables.", (9, 29)),
        ("{city} Travel Guide", ["guidebook"], "Maps, sights and tips.", (9, 25)),
        ("Learn {lang} in 30 Days", ["language course"], "A practical course.", (12, 30)),
    ],
    "Toys": [
        ("Building Blocks Set {n} Pieces", ["bricks", "construction toy"], "Creative building set.", (15, 99), [100, 250, 500, 1000]),
        ("Teddy Bear {color}", ["plush bear", "soft toy"], "Cuddly plush bear.", (9, 39)),
        ("Remote Control Car", ["rc car"], "Fast RC car with rechargeable battery.", (25, 89)),
        ("Jigsaw Puzzle {n} Pieces", ["puzzle"], "Puzzle with a landscape motif.", (8, 25), [500, 1000, 1500, 2000]),
        ("Wooden Train Set", ["toy train"], "Train set with tracks.", (29, 99)),
        ("Board Game {noun}", ["family game"], "A game for the whole family.", (15, 49)),
        ("Toy Kitchen", ["play kitchen"], "Play kitchen with accessories.", (49, 149)),
        ("Kite {color}", [], "Easy-flying kite.", (9, 29)),
    ],
    "Groceries": [
        ("{flavor} Tea {n} Bags", ["tea"], "Aromatic tea.", (2, 8), [20, 25, 40, 50]),
        ("Ground Coffee {flavor}", ["coffee"], "Medium roast.", (4, 14)),
        ("Organic {fruit} Jam", ["jam", "preserve"], "Fruit spread.", (3, 7)),
        ("Dark Chocolate {n}%", ["chocolate"], "Fine dark chocolate.", (2, 6), [55, 70, 85, 90]),
        ("Olive Oil Extra Virgin {n} ml", ["olive oil"], "Cold-pressed olive oil.", (5, 19), [250, 500, 750, 1000]),
        ("Pasta {pasta} 500 g", ["pasta", "noodles"], "Durum wheat pasta.", (1, 4)),
        ("Basmati Rice {n} kg", ["rice"], "Long-grain rice.", (2, 9), [1, 2, 5]),
        ("Red Lentils 1 kg", ["lentils"], "Quick-cooking lentils.", (2, 5)),
    ],
    "Electronics": [
        ("Wireless Headphones {color}", ["bluetooth headphones", "headset"], "Noise-cancelling headphones.", (39, 349)),
        ("Bluetooth Speaker {color}", ["portable speaker"], "Waterproof speaker.", (25, 149)),
        ("USB-C Cable {n} m", ["charging cable"], "Braided cable.", (5, 19), [1, 2, 3]),
        ("HDMI Cable {n} m", ["hdmi"], "High-speed HDMI cable.", (6, 25), [1, 2, 3, 5]),
        ("LED Desk Lamp", ["reading lamp"], "Dimmable lamp.", (19, 59)),
        ("Smart Watch {brand}", ["smartwatch", "fitness watch"], "Tracks steps and sleep.", (49, 399)),
        ("4K Television {n} inch", ["tv", "television"], "Ultra HD smart TV.", (299, 1499), [43, 50, 55, 65, 75]),
        ("Laptop Stand {metal}", ["notebook stand"], "Ergonomic stand.", (19, 59)),
        ("Wireless Mouse {color}", ["mouse"], "Quiet wireless mouse.", (9, 49)),
        ("Mechanical Keyboard", ["keyboard"], "Keyboard with tactile switches.", (49, 169)),
    ],
    "Clothing": [
        ("{color} T-Shirt", ["tee", "t shirt"], "Cotton t-shirt.", (9, 29)),
        ("{color} Shirt", ["button-down"], "Long-sleeve shirt.", (19, 59)),
        ("{color} Hoodie", ["sweatshirt"], "Warm hooded sweatshirt.", (25, 69)),
        ("{color} Jeans", ["denim"], "Slim-fit jeans.", (29, 89)),
        ("{color} Rain Jacket", ["raincoat"], "Waterproof jacket.", (39, 149)),
        ("Wool Socks {color}", ["socks"], "Warm wool socks.", (5, 15)),
        ("{color} Scarf", [], "Soft knitted scarf.", (9, 39)),
    ],
    "Home": [
        ("Bath Towel {color}", ["towel"], "Fluffy bath towel.", (9, 29)),
        ("Hand Towel Set of {n}", ["towels"], "Cotton hand towels.", (9, 25), [2, 4, 6]),
        ("Scented Candle {flavor}", ["candle"], "Soy wax candle.", (7, 25)),
        ("Throw Pillow {color}", ["cushion"], "Decorative pillow.", (12, 35)),
        ("Wall Clock {clock}", ["clock"], "Silent wall clock.", (15, 59)),
        ("Vacuum Cleaner {brand}", ["hoover"], "Bagless vacuum cleaner.", (79, 399)),
        ("Storage Box {n} l", ["storage bin"], "Stackable box with lid.", (6, 25), [10, 20, 30, 45]),
    ],
    "Beauty": [
        ("{flavor} Shampoo {n} ml", ["hair wash"], "Gentle shampoo for daily use.", (3, 12), [250, 400, 500]),
        ("Face Cream SPF {n}", ["moisturiser", "sunscreen"], "Light day cream.", (8, 35), [15, 30, 50]),
        ("Lip Balm {fruit}", ["chapstick"], "Nourishing lip balm.", (2, 6)),
        ("Hair Dryer {color}", ["blow dryer"], "2000 W dryer with diffuser.", (19, 89)),
        ("Electric Toothbrush {brand}", ["toothbrush"], "Rechargeable brush with timer.", (25, 129)),
        ("Nail Polish {color}", ["nail varnish"], "Quick-dry nail polish.", (3, 12)),
    ],
    "Office": [
        ("Notebook A5 {color}", ["notepad", "journal"], "Dotted notebook with 192 pages.", (4, 19)),
        ("Ballpoint Pens Pack of {n}", ["pens", "biros"], "Smooth blue ink.", (2, 12), [5, 10, 20, 50]),
        ("Desk Organizer {wood}", ["desk tidy"], "Keeps pens and notes in order.", (9, 35)),
        ("Office Chair {color}", ["desk chair"], "Ergonomic chair with lumbar support.", (79, 349)),
        ("Sticky Notes {color}", ["post-it notes"], "Repositionable notes.", (2, 7)),
        ("Printer Paper A4 {n} Sheets", ["copy paper"], "80 g/m² paper.", (4, 29), [500, 2500]),
    ],
    "Tools": [
        ("Cordless Drill {n} V", ["power drill", "drill driver"], "Drill with two batteries.", (49, 199), [12, 18, 20]),
        ("Screwdriver Set {n} Pieces", ["screwdrivers"], "Magnetic tips.", (9, 49), [6, 12, 32, 64]),
        ("Claw Hammer {n} g", ["hammer"], "Fibreglass handle.", (9, 29), [300, 450, 600]),
        ("Tape Measure {n} m", ["measuring tape"], "Locking tape measure.", (4, 19), [3, 5, 8]),
        ("Spirit Level {n} cm", ["level"], "Aluminium level with three vials.", (8, 39), [40, 60, 100]),
        ("Toolbox {color}", ["tool box", "tool chest"], "Toolbox with removable tray.", (15, 79)),
    ],
    "Pet Supplies": [
        ("Dog Bed {color}", ["dog basket"], "Washable bed.", (19, 89)),
        ("Dog Leash {color}", ["dog lead"], "Reflective leash.", (7, 25)),
        ("Cat Scratching Post {n} cm", ["cat tree"], "Sisal post.", (15, 79), [50, 80, 120]),
        ("Dog Food Chicken {n} kg", ["dog food"], "Complete dry food.", (9, 59), [2, 4, 12]),
        ("Cat Litter {n} l", ["kitty litter"], "Clumping litter.", (5, 19), [10, 20]),
        ("Dog Toy Ball {color}", ["dog ball"], "Bouncy rubber ball.", (3, 12)),
    ],
    "Baby": [
        ("Baby Bottle {n} ml", ["feeding bottle"], "Anti-colic bottle.", (6, 19), [150, 260, 330]),
        ("Baby Blanket {color}", ["swaddle"], "Soft muslin blanket.", (12, 39)),
        ("Stroller {brand}", ["pram", "pushchair"], "Foldable stroller.", (149, 599)),
        ("Baby Wipes Pack of {n}", ["wet wipes"], "Fragrance-free wipes.", (3, 15), [4, 8, 12]),
    ],
    "Music": [
        ("Acoustic Guitar {wood}", ["guitar"], "Full-size steel-string guitar.", (89, 499)),
        ("Ukulele {color}", ["uke"], "Soprano ukulele.", (25, 89)),
        ("Digital Piano {n} Keys", ["keyboard", "e-piano"], "Weighted keys.", (199, 899), [61, 76, 88]),
        ("Guitar Strings", ["strings"], "Light gauge strings.", (5, 15)),
    ],
    "Sports": [
        ("Yoga Mat {color}", ["exercise mat"], "Non-slip mat.", (15, 49)),
        ("Dumbbells {n} kg Pair", ["weights"], "Neoprene dumbbells.", (15, 79), [2, 3, 5, 8, 10]),
        ("Football Size 5", ["soccer ball"], "Match ball.", (15, 39)),
        ("Tennis Racket", ["racquet"], "Lightweight racket.", (29, 149)),
        ("Water Bottle {n} ml", ["drinking bottle"], "Leak-proof bottle.", (8, 25), [500, 750, 1000]),
        ("Bicycle Helmet {color}", ["bike helmet"], "Ventilated helmet.", (29, 99)),
    ],
}

# Products whose names are not English or not in Latin script: they must survive every layer.
SPECIAL = [
    ("Crème Brûlée Torch", "Kitchen", ["kitchen torch", "creme brulee torch"], "Butane torch for caramelising sugar.", 24.90),
    ("Crème Brûlée Ramekins Set of 6", "Kitchen", ["ramekins"], "Porcelain ramekins.", 19.90),
    ("Zürich Travel Guide", "Books", ["zurich guide", "Zuerich"], "Guide to Zürich and its lake.", 14.90),
    ("東京 Guidebook", "Books", ["Tokyo guide", "とうきょう"], "Guide to Tokyo with maps.", 18.00),
    ("Кофеварка", "Kitchen", ["coffee maker", "kofevarka"], "Капельная кофеварка на 10 чашек.", 49.00),
    ("Чайник электрический", "Kitchen", ["electric kettle"], "Электрический чайник 1,7 л.", 29.00),
    ("Αθήνα City Map", "Books", ["Athens map", "Athina"], "Folding map of Athens.", 7.50),
    ("Café au Lait Bowl", "Kitchen", ["cafe bowl"], "Large ceramic bowl.", 9.90),
    ("Jalapeño Hot Sauce", "Groceries", ["jalapeno sauce", "chili sauce"], "Fiery green sauce.", 4.50),
    ("Smörgåsbord Cookbook", "Books", ["smorgasbord"], "Scandinavian recipes.", 22.00),
    ("Straßenkarte Deutschland", "Books", ["road atlas germany", "strassenkarte"], "Road atlas.", 12.90),
    ("Piña Colada Syrup", "Groceries", ["pina colada"], "Syrup for cocktails.", 6.90),
    ("Ñandú Plush Toy", "Toys", ["rhea plush", "nandu"], "Soft plush rhea.", 14.90),
    ("Müsli Crunchy 750 g", "Groceries", ["muesli", "granola"], "Oat clusters with nuts.", 3.90),
    ("Garçon Apron", "Kitchen", ["waiter apron"], "Long bistro apron.", 16.90),
    ("Bento Box 弁当", "Kitchen", ["lunch box", "bento"], "Two-tier lunch box.", 21.00),
    ("Matcha 抹茶 Tea Powder", "Groceries", ["matcha", "green tea powder"], "Ceremonial-grade matcha.", 15.90),
    ("Σαπούνι Olive Oil Soap", "Home", ["olive soap", "sapouni"], "Greek olive oil soap.", 4.90),
    ("Köln Travel Guide", "Books", ["cologne guide", "Koeln"], "Guide to Cologne.", 13.90),
    ("Ærø Island Map", "Books", ["aero map"], "Map of the Danish island.", 8.90),
    ("Red Shoes", "Shoes", ["red shoes"], "Classic red shoes.", 59.00),
    ("Red Shower Curtain", "Home", ["shower curtain"], "Water-repellent curtain.", 17.90),
    ("Red Shopping Bag", "Bags", ["tote bag"], "Reusable shopping bag.", 4.90),
]

BRANDS = ["Nova", "Apex", "Orbit", "Pixel", "Zen", "Volt", "Lumo", "Kairo"]
WOODS = ["Bamboo", "Oak", "Teak", "Acacia", "Pine"]
CASINGS = ["Silicone", "Leather", "Clear", "Rugged"]
METALS = ["Aluminium", "Steel", "Bamboo"]
CLOCKS = ["Wood", "Metal", "Glass"]
FLAVORS = ["Earl Grey", "Green", "Mint", "Vanilla", "Lavender", "Chamomile", "Espresso", "Citrus", "Cinnamon"]
FRUITS = ["Strawberry", "Apricot", "Raspberry", "Cherry", "Orange", "Blueberry"]
PASTA = ["Spaghetti", "Penne", "Fusilli", "Farfalle", "Linguine"]
ADJ = ["Silent", "Hidden", "Last", "Golden", "Broken", "Secret", "Endless", "Little", "Forgotten", "Winter", "Red", "Quiet"]
NOUNS = [
    "Garden", "River", "Kingdom", "Lighthouse", "Orchard", "Library", "Island", "Mountain", "Harbour", "Forest",
    "Station", "Bridge", "Kitchen", "Tower",
]
CITIES = ["Paris", "Rome", "Lisbon", "Berlin", "Vienna", "Prague", "Barcelona", "Kyoto", "New York"]
LANGS = ["Spanish", "French", "German", "Italian", "Japanese", "Portuguese"]
SIZES = ["16", "18", "20", "24", "26", "28", "30"]


def fill(template, numbers, rnd):
    values = {
        "color": rnd.choice(COLORS), "size": rnd.choice(SIZES), "brand": rnd.choice(BRANDS),
        "wood": rnd.choice(WOODS), "casing": rnd.choice(CASINGS), "metal": rnd.choice(METALS),
        "clock": rnd.choice(CLOCKS), "flavor": rnd.choice(FLAVORS), "fruit": rnd.choice(FRUITS),
        "pasta": rnd.choice(PASTA), "adj": rnd.choice(ADJ), "noun": rnd.choice(NOUNS),
        "noun2": rnd.choice(NOUNS), "city": rnd.choice(CITIES), "lang": rnd.choice(LANGS),
        "n": str(rnd.choice(numbers)) if numbers else "",
    }
    return template.format(**values)


def popularity(rnd):
    """Long-tailed popularity with many ties: a fifth are 0, most are small, a few are large."""
    roll = rnd.random()
    if roll < 0.2:
        return 0
    if roll < 0.6:
        return rnd.randint(1, 20)
    if roll < 0.95:
        return rnd.randint(20, 2000)
    return int(2000 / (1.0 - rnd.random()) ** 0.9)


def price(low, high, rnd):
    return "%d.%02d" % (rnd.randint(low, high - 1), rnd.choice([0, 49, 90, 95, 99]))


def make_entries(target):
    rnd = random.Random(SEED)
    entries = []
    seen_titles = {}
    departments = list(DEPARTMENTS.keys())

    def add(title, category, aliases, description, attributes, weight):
        sku = "sku-%05d" % (len(entries) + 1)
        entry = {"id": sku, "title": title, "category": category}
        if weight:
            entry["weight"] = weight
        if aliases:
            entry["aliases"] = aliases
        if description:
            entry["description"] = description
        attributes = dict(attributes)
        attributes["image"] = "https://img.example.com/%s.jpg" % sku
        entry["attributes"] = attributes
        entries.append(entry)

    for title, category, aliases, description, amount in SPECIAL:
        add(title, category, aliases, description, {"price": "%.2f" % amount}, popularity(rnd) + 50)

    attempts = 0
    duplicates = 0
    while len(entries) < target and attempts < target * 200:
        attempts += 1
        department = rnd.choice(departments)
        template, aliases, description, (low, high), *numbers = rnd.choice(DEPARTMENTS[department])
        title = fill(template, numbers[0] if numbers else None, rnd)
        # A few variants share a title (different sellers or sizes), as real catalogs do;
        # otherwise skip repeats so the sample stays varied.
        count = seen_titles.get(title, 0)
        if count >= 2 or (count == 1 and (duplicates >= target // 40 or rnd.random() > 0.05)):
            continue
        duplicates += count
        seen_titles[title] = count + 1
        chosen_aliases = [a for a in aliases if rnd.random() < 0.6]
        attributes = {"price": price(low, high, rnd)}
        if rnd.random() < 0.3:
            attributes["brand"] = rnd.choice(BRANDS)
        add(title, department, chosen_aliases, description if rnd.random() < 0.8 else None, attributes, popularity(rnd))
    return entries


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("-o", "--output", default=os.path.join(root, "deploy", "catalog", "sample.jsonl"))
    parser.add_argument("-n", "--count", type=int, default=1600)
    args = parser.parse_args()
    lines = [json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in make_entries(args.count)]
    text = "\n".join(lines) + "\n"
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        print("wrote %d entries to %s" % (len(lines), args.output), file=sys.stderr)


if __name__ == "__main__":
    main()
