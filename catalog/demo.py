"""Demo fruits: real varieties with drawn images, to try the service out (`load_demo_data`)."""

import io
import math
from dataclasses import dataclass

from PIL import Image, ImageDraw, ImageFilter

from blobs.rights import License
from catalog.models import Fruit, FruitImage, FruitType
from catalog.services import fruit_create, fruit_update
from catalog.validators import clean_names, clean_relations

BACKGROUND = (246, 243, 236)  # a plain light paper tone: the thumbnail crop finds the fruit on it
SUPERSAMPLE = 2  # drawn at 2x and scaled down: smooth edges without an anti-aliasing library
BLUR_SCALE = 8  # soft layers are blurred at 1/8 size and scaled up: the same look, far faster
STEM = (101, 67, 33)
LEAF = (76, 140, 58)


@dataclass(frozen=True)
class DemoFruit:
    """A variety as the demo loads it, with the colours of its drawing."""

    name: str
    type: str
    synonyms: tuple[str, ...]
    colour: tuple[int, int, int]
    blush: tuple[int, int, int] | None = None
    size: tuple[int, int] = (800, 600)


A, P, Q, C, PL, AP, PE = (
    FruitType.APPLE,
    FruitType.PEAR,
    FruitType.QUINCE,
    FruitType.CHERRY,
    FruitType.PLUM,
    FruitType.APRICOT,
    FruitType.PEACH,
)

# Synonyms as pomological literature and nurseries list them.
DEMO_FRUITS = [
    DemoFruit(
        "Schöner aus Boskoop", A, ("Boskoop", "Belle de Boskoop"), (150, 150, 70), (170, 80, 50)
    ),
    DemoFruit("Roter Boskoop", A, ("Red Boskoop",), (140, 120, 60), (160, 45, 40)),
    DemoFruit("Gravensteiner", A, ("Gravenstein",), (214, 196, 90), (200, 60, 50), (900, 640)),
    DemoFruit(
        "Cox Orange",
        A,
        ("Cox's Orange Pippin", "Cox Orangenrenette"),
        (200, 170, 70),
        (215, 100, 40),
    ),
    DemoFruit(
        "Goldparmäne",
        A,
        ("Reine des Reinettes", "King of the Pippins"),
        (222, 180, 60),
        (205, 90, 45),
    ),
    DemoFruit(
        "Freiherr von Berlepsch",
        A,
        ("Berlepsch", "Goldrenette Freiherr von Berlepsch"),
        (215, 185, 70),
        (190, 40, 40),
    ),
    DemoFruit("Jakob Lebel", A, ("Jacques Lebel",), (215, 205, 110), (200, 80, 60), (640, 640)),
    DemoFruit(
        "Rheinischer Bohnapfel", A, ("Bohnapfel", "Großer Bohnapfel"), (170, 185, 80), (150, 70, 50)
    ),
    DemoFruit(
        "Weißer Klarapfel",
        A,
        ("Klarapfel", "Yellow Transparent", "Transparente blanche"),
        (225, 225, 150),
    ),
    DemoFruit("Elstar", A, (), (225, 190, 60), (210, 50, 40)),
    DemoFruit("Topaz", A, (), (220, 180, 60), (190, 40, 35), (700, 700)),
    DemoFruit(
        "Williams Christ",
        P,
        ("Williams Christbirne", "Bartlett", "Williams' Bon Chrétien"),
        (225, 205, 80),
        size=(600, 800),
    ),
    DemoFruit("Conference", P, (), (150, 150, 70), size=(600, 800)),
    DemoFruit(
        "Gute Luise",
        P,
        ("Gute Luise von Avranches", "Louise Bonne d'Avranches", "Louise Bonne of Jersey"),
        (160, 180, 70),
        (190, 70, 50),
        (600, 800),
    ),
    DemoFruit(
        "Gellerts Butterbirne", P, ("Beurré Hardy", "Hardy"), (175, 140, 70), size=(640, 820)
    ),
    DemoFruit(
        "Alexander Lucas",
        P,
        ("Lucas", "Beurré Alexandre Lucas"),
        (200, 195, 90),
        (170, 110, 60),
        (600, 800),
    ),
    DemoFruit(
        "Vereinsdechantsbirne",
        P,
        ("Doyenné du Comice", "Comice"),
        (190, 190, 90),
        (180, 90, 60),
        (620, 760),
    ),
    DemoFruit("Portugiesische Birnenquitte", Q, ("Portugal", "Portugal Quince"), (225, 195, 50)),
    DemoFruit(
        "Konstantinopeler Apfelquitte", Q, ("Apfelquitte aus Konstantinopel",), (230, 200, 60)
    ),
    DemoFruit(
        "Hedelfinger Riesenkirsche",
        C,
        ("Hedelfinger", "Géante d'Hedelfingen"),
        (120, 20, 35),
    ),
    DemoFruit("Schattenmorelle", C, ("Morello", "Große Lange Lotkirsche"), (150, 20, 30)),
    DemoFruit(
        "Büttners Rote Knorpelkirsche",
        C,
        ("Büttners Späte Rote Knorpelkirsche",),
        (220, 150, 60),
        (200, 40, 40),
    ),
    DemoFruit("Kordia", C, ("Attika",), (90, 15, 30)),
    DemoFruit("Hauszwetschge", PL, ("Bauernzwetschge", "Gemeine Zwetschge"), (60, 50, 110)),
    DemoFruit("Mirabelle von Nancy", PL, ("Mirabelle de Nancy",), (235, 195, 60), (215, 120, 50)),
    DemoFruit("Große Grüne Reneklode", PL, ("Reine Claude Verte", "Greengage"), (160, 195, 90)),
    DemoFruit("Bühler Frühzwetschge", PL, ("Bühler",), (75, 55, 120), size=(640, 800)),
    DemoFruit(
        "Ungarische Beste", AP, ("Hungarian Best", "Magyar kajszi"), (240, 160, 50), (225, 90, 40)
    ),
    DemoFruit("Nancy-Aprikose", AP, ("Pêche de Nancy",), (235, 170, 70), (215, 110, 50)),
    DemoFruit(
        "Roter Weinbergpfirsich",
        PE,
        ("Weinbergpfirsich", "Pêche de vigne"),
        (150, 60, 70),
        (110, 30, 50),
    ),
    DemoFruit("Redhaven", PE, (), (240, 170, 80), (210, 50, 45), (820, 620)),
]


# --- drawing -------------------------------------------------------------------------------------


def _shade(colour, factor: float) -> tuple[int, int, int]:
    """The colour darkened (factor < 1) or lightened (> 1)."""
    if factor <= 1:
        return tuple(round(c * factor) for c in colour)
    return tuple(round(c + (255 - c) * (factor - 1)) for c in colour)


def _blur(layer: Image.Image, radius: float, scale: int = BLUR_SCALE) -> Image.Image:
    """A Gaussian blur computed on a smaller copy: blurred layers have no detail to lose."""
    small = layer.resize(
        (max(1, layer.width // scale), max(1, layer.height // scale)), Image.Resampling.BOX
    )
    small = small.filter(ImageFilter.GaussianBlur(radius / scale))
    return small.resize(layer.size, Image.Resampling.BILINEAR)


def _smooth(mask: Image.Image, radius: float) -> Image.Image:
    """Round off the joins of shapes unioned into a mask (blur, then threshold).

    Only the shapes' surroundings are blurred: the rest of the canvas stays black anyway.
    """
    left, top, right, bottom = mask.getbbox()
    margin = round(3 * radius)
    region = (
        max(0, left - margin),
        max(0, top - margin),
        min(mask.width, right + margin),
        min(mask.height, bottom + margin),
    )
    smoothed = _blur(mask.crop(region), radius, scale=4).point(lambda v: 255 if v > 127 else 0)
    mask.paste(smoothed, region[:2])
    return mask


def _body_mask(kind: str, size, cx: float, cy: float, r: float) -> Image.Image:
    """The silhouette of a fruit of `kind` around (cx, cy) with a characteristic radius r."""
    mask = Image.new("L", size, 0)
    draw = ImageDraw.Draw(mask)
    if kind == FruitType.PEAR or kind == FruitType.QUINCE:
        top, neck = (0.5, 0.55) if kind == FruitType.PEAR else (0.7, 0.6)
        draw.ellipse((cx - r, cy - 0.2 * r, cx + r, cy + 1.55 * r), fill=255)
        draw.ellipse((cx - top * r, cy - 1.45 * r, cx + top * r, cy - 0.45 * r), fill=255)
        draw.polygon(
            [
                (cx - top * r, cy - 0.95 * r),
                (cx + top * r, cy - 0.95 * r),
                (cx + 0.95 * r, cy + 0.4 * r),
                (cx - 0.95 * r, cy + 0.4 * r),
            ],
            fill=255,
        )
        if kind == FruitType.QUINCE:  # the lumpy shoulders of a quince
            for angle, distance, radius in (
                (195, 0.78, 0.4),
                (240, 0.95, 0.36),
                (300, 0.95, 0.36),
                (345, 0.78, 0.4),
                (90, 0.7, 0.45),
            ):
                a = math.radians(angle)
                bx, by = cx + distance * r * math.cos(a), cy + 0.6 * r + distance * r * math.sin(a)
                draw.ellipse(
                    (bx - radius * r, by - radius * r, bx + radius * r, by + radius * r), 255
                )
        return _smooth(mask, neck * r * 0.25)
    if kind == FruitType.PLUM:
        draw.ellipse((cx - 0.85 * r, cy - r, cx + 0.85 * r, cy + r), fill=255)
        return mask
    if kind == FruitType.APPLE:
        draw.ellipse((cx - 1.08 * r, cy - 0.95 * r, cx + 1.08 * r, cy + 0.95 * r), fill=255)
        # the stem cavity: a shallow dip in the top outline
        draw.ellipse((cx - 0.28 * r, cy - 1.08 * r, cx + 0.28 * r, cy - 0.82 * r), fill=0)
        return _smooth(mask, r * 0.06)
    draw.ellipse((cx - r, cy - 0.96 * r, cx + r, cy + 0.96 * r), fill=255)
    return mask


def _paint_body(canvas, mask, fruit: DemoFruit, box):
    """Fill the silhouette: base colour, blush, shading towards the lower right, a highlight.

    The layers are built for the fruit's box only, not the whole canvas.
    """
    x0, y0, x1, y1 = (round(v) for v in box)
    w, h = x1 - x0, y1 - y0
    region = (x0, y0, x1, y1)
    size = (w, h)
    body = Image.new("RGB", size, fruit.colour)
    if fruit.blush is not None:
        blush = Image.new("L", size, 0)
        ImageDraw.Draw(blush).ellipse((0.1 * w, 0.05 * h, 0.85 * w, 0.8 * h), fill=210)
        body.paste(Image.new("RGB", size, fruit.blush), mask=_blur(blush, 0.12 * w))
    # Shading: a radial gradient centred up and left, dark at the far edge.
    # The gradient spans 1.9 times the fruit, its centre offset up and left of the fruit's.
    unit = 256 / 1.9
    shade = Image.radial_gradient("L").resize(
        (w, h), box=(0.55 * unit, 0.6 * unit, 1.55 * unit, 1.6 * unit)
    )
    shade = shade.point(lambda v: round(max(0, v - 90) * 0.75))
    body.paste(Image.new("RGB", size, _shade(fruit.colour, 0.35)), mask=shade)
    highlight = Image.new("L", size, 0)
    ImageDraw.Draw(highlight).ellipse((0.22 * w, 0.16 * h, 0.42 * w, 0.32 * h), fill=170)
    body.paste(Image.new("RGB", size, (255, 255, 255)), mask=_blur(highlight, 0.04 * w))
    canvas.paste(body, region, mask=mask.crop(region))


def _shadow(canvas, box, background):
    """A soft shadow under the fruit, a little darker than the background."""
    x0, _, x1, y1 = box
    w = x1 - x0
    margin = 0.2 * w  # room for the blur to fade out
    left, top = round(x0 - margin), round(y1 - 0.08 * w - margin)
    size = (round(x1 + margin) - left, round(y1 + 0.08 * w + margin) - top)
    shadow = Image.new("L", size, 0)
    ImageDraw.Draw(shadow).ellipse(
        (x0 + 0.1 * w - left, y1 - 0.08 * w - top, x1 - 0.05 * w - left, y1 + 0.08 * w - top), 255
    )
    canvas.paste(_shade(background, 0.82), (left, top), mask=_blur(shadow, 0.05 * w))


def _leaf(draw, base, length: float, angle_deg: float):
    """A leaf from `base` pointing at `angle_deg`, with a midrib."""
    angle = math.radians(angle_deg)
    ux, uy = math.cos(angle), math.sin(angle)
    nx, ny = -uy, ux
    points_left, points_right = [], []
    for i in range(21):
        t = i / 20
        half_width = 0.22 * length * math.sin(math.pi * t) ** 0.9
        px, py = base[0] + ux * length * t, base[1] + uy * length * t
        points_left.append((px + nx * half_width, py + ny * half_width))
        points_right.append((px - nx * half_width, py - ny * half_width))
    draw.polygon(points_left + points_right[::-1], fill=LEAF)
    tip = (base[0] + ux * length * 0.9, base[1] + uy * length * 0.9)
    draw.line([base, tip], fill=_shade(LEAF, 0.7), width=max(2, round(length * 0.03)))


def _curve(start, control, end, steps=24):
    """Points of a quadratic Bézier curve."""
    return [
        (
            (1 - t) ** 2 * start[0] + 2 * (1 - t) * t * control[0] + t**2 * end[0],
            (1 - t) ** 2 * start[1] + 2 * (1 - t) * t * control[1] + t**2 * end[1],
        )
        for t in (i / steps for i in range(steps + 1))
    ]


def render_fruit(fruit: DemoFruit, background=BACKGROUND) -> Image.Image:
    """The fruit on a plain light background, with generous margins around it."""
    width, height = (side * SUPERSAMPLE for side in fruit.size)
    canvas = Image.new("RGB", (width, height), background)
    draw = ImageDraw.Draw(canvas)
    short = min(width, height)
    stem_width = max(3, round(short * 0.018))
    if fruit.type == FruitType.CHERRY:
        r = short * 0.14
        joint = (width * 0.52, height * 0.2)
        for dx, dy in ((-0.9, 0.05), (0.95, -0.05)):
            cx, cy = width / 2 + dx * r * 1.1, height * 0.62 + dy * r
            box = (cx - r, cy - r, cx + r, cy + r)
            _shadow(canvas, box, background)
            mask = Image.new("L", canvas.size, 0)
            ImageDraw.Draw(mask).ellipse(box, fill=255)
            _paint_body(canvas, mask, fruit, box)
            control = (cx + dx * r * 0.2, (joint[1] + cy) / 2)
            draw.line(_curve((cx, cy - 0.85 * r), control, joint), fill=STEM, width=stem_width)
        _leaf(draw, joint, short * 0.22, -20)
    else:
        r = short * (0.22 if fruit.type in (FruitType.PEAR, FruitType.QUINCE) else 0.26)
        cx = width / 2
        cy = height * (0.52 if fruit.type in (FruitType.PEAR, FruitType.QUINCE) else 0.55)
        mask = _body_mask(fruit.type, canvas.size, cx, cy, r)
        box = mask.getbbox()
        _shadow(canvas, box, background)
        _paint_body(canvas, mask, fruit, box)
        if fruit.type in (FruitType.PLUM, FruitType.APRICOT, FruitType.PEACH):
            # the suture, the seam running down one side of stone fruit
            suture = _curve((cx + 0.05 * r, box[1] + 0.05 * r), (cx + 0.45 * r, cy), (cx, box[3]))
            draw.line(suture, fill=_shade(fruit.blush or fruit.colour, 0.75), width=stem_width)
        top = (cx, box[1] + (0.12 * r if fruit.type == FruitType.APPLE else 0.02 * r))
        stem_end = (cx + 0.12 * r, box[1] - 0.32 * r)
        draw.line(_curve(top, (cx - 0.02 * r, top[1] - 0.2 * r), stem_end), STEM, stem_width)
        if fruit.type != FruitType.PLUM:
            _leaf(draw, (cx + 0.06 * r, box[1] - 0.18 * r), r * 0.85, -25)
    return canvas.reduce(SUPERSAMPLE)


def encode(image: Image.Image, fmt: str = "JPEG", **options) -> bytes:
    """The image's bytes in `fmt`."""
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, **options)
    return buffer.getvalue()


def draw_fruit(fruit: DemoFruit, background=BACKGROUND) -> bytes:
    """A JPEG of the fruit on a plain light background, with generous margins around it."""
    return encode(render_fruit(fruit, background), quality=88)


# --- loading -------------------------------------------------------------------------------------


# Real parentage of demo varieties, to another demo fruit or by name, and a pair that growers
# and nurseries mix up: two small orange-red striped dessert apples of the same season.
DEMO_RELATIONS = {
    "Roter Boskoop": [{"kind": "sport_of", "fruit": "Schöner aus Boskoop"}],
    "Elstar": [
        {"kind": "mother", "name": "Golden Delicious"},
        {"kind": "father", "name": "Ingrid Marie"},
    ],
    "Topaz": [{"kind": "mother", "name": "Rubin"}, {"kind": "father", "name": "Vanda"}],
    "Freiherr von Berlepsch": [
        {"kind": "mother", "name": "Ananasrenette"},
        {"kind": "father", "name": "Ribston Pepping"},
    ],
    "Cox Orange": [{"kind": "seedling_of", "name": "Ribston Pepping"}],
    "Goldparmäne": [{"kind": "confused_with", "fruit": "Cox Orange"}],
}


def load_demo_relations() -> int:
    """Give the demo varieties their relations, unless they have relations already; return to
    how many fruits relations were given."""
    fruits = {
        fruit.name: fruit for fruit in Fruit.objects.filter(name__in=[d.name for d in DEMO_FRUITS])
    }
    count = 0
    for name, relations in DEMO_RELATIONS.items():
        fruit = fruits.get(name)
        if fruit is None or fruit.relations.exists():
            continue
        records = [
            {
                "kind": relation["kind"],
                "fruit_id": fruits[relation["fruit"]].pk if "fruit" in relation else None,
                "name": relation.get("name"),
                "note": "",
            }
            for relation in relations
            if "fruit" not in relation or relation["fruit"] in fruits
        ]
        if records:
            fruit_update(fruit=fruit, relations=clean_relations(records, fruit_id=fruit.pk))
            count += 1
    return count


def load_demo_fruits(stdout=None) -> tuple[int, int]:
    """Create the demo fruits that do not exist yet (by name), each with a drawn image.

    Returns how many fruits were created and how many were already there.
    """
    existing = set(
        Fruit.objects.filter(name__in=[f.name for f in DEMO_FRUITS]).values_list("name", flat=True)
    )
    created = 0
    for demo in DEMO_FRUITS:
        if demo.name in existing:
            continue
        fruit = fruit_create(
            name=demo.name,
            type=demo.type,
            names=clean_names([{"name": name} for name in demo.synonyms], fruit_name=demo.name),
        )
        # Through the save hook, like an upload: metadata and thumbnail are computed on save.
        FruitImage.objects.create(
            fruit=fruit,
            data=draw_fruit(demo),
            alt_text=f"Drawing of the {FruitType(demo.type).label.lower()} variety {demo.name}",
            creator="Fruit Catalog demo",
            source="Drawn by the demo data (catalog/demo.py)",
            license=License.CC0,
        )
        created += 1
        if stdout is not None:
            stdout.write(f"  {fruit}")
    return created, len(existing)
