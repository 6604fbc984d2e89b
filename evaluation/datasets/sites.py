"""What the synthetic pages are made of: articles and products cut from real paragraphs, and
generated site templates (header, navigation, sidebar, ads, footer) they are rendered in."""

from __future__ import annotations

import html as htmllib
import random
import re
from dataclasses import dataclass, field
from functools import lru_cache

from neardup.evaluation.datasets.paragraphs import paragraph_source
from neardup.evaluation.datasets.splits import split_range

__all__ = [
    "Article",
    "Descriptions",
    "Material",
    "Product",
    "Site",
    "make_product",
    "material",
    "render_page",
    "site_templates",
    "title_of",
]


@dataclass(frozen=True)
class Article:
    title: str
    paragraphs: tuple[str, ...]

    @property
    def length(self) -> int:
        return sum(len(p) for p in self.paragraphs)


@dataclass(frozen=True)
class Product:
    name: str
    price: str
    specs: tuple[tuple[str, str], ...]
    description: tuple[str, ...]


@dataclass
class Site:
    name: str
    domain: str
    lang: str
    slogan: str
    nav: list[str]
    sidebar_title: str
    sidebar_pool: list[str]
    footer: str
    ads: list[str]
    shop_policy: str
    layout: int  # 0: sidebar after content, 1: sidebar before content
    css: str = field(default="")


@dataclass
class Material:
    """Paragraph material of one language and split: articles, template text, filler."""

    lang: str
    articles: list[Article]
    template_text: list[str]  # reserved paragraphs for headlines, ads and brands
    product_text: list[str]  # reserved paragraphs for product descriptions
    tokens: list[str]  # characters (zh) or words (en) for substitutions


_ZH_PUNCT = re.compile(r"[，。！？；：、]")
_EN_SENT = re.compile(r"(?<=[.!?])\s+")


def title_of(paragraph: str, lang: str) -> str:
    if lang == "zh":
        head = _ZH_PUNCT.split(paragraph, maxsplit=1)[0]
        return head[:24] if len(head) >= 6 else paragraph[:20]
    head = _EN_SENT.split(paragraph, maxsplit=1)[0]
    return head if len(head) <= 80 else head[:77].rsplit(" ", 1)[0] + "..."


@lru_cache(maxsize=8)
def material(lang: str, split: str) -> Material:
    paragraphs = paragraph_source(lang)
    lo, hi = split_range(len(paragraphs), split)
    part = list(paragraphs[lo:hi])
    # the last 10 % of the range feeds templates (headlines, ads, products), never articles
    cut = int(len(part) * 0.9)
    body, reserved = part[:cut], part[cut:]
    rng = random.Random(f"articles/{lang}/{split}")
    lo_len, hi_len = (500, 3000) if lang == "zh" else (700, 4000)
    articles: list[Article] = []
    i = 0
    while i < len(body):
        want = rng.randint(4, 10)
        run: list[str] = []
        size = 0
        while i < len(body) and len(run) < want and size < hi_len:
            run.append(body[i])
            size += len(body[i])
            i += 1
        if size >= lo_len and len(run) >= 3:
            articles.append(Article(title_of(run[0], lang), tuple(run)))
    if lang == "zh":
        tokens = sorted({ch for p in reserved for ch in p if "\u4e00" <= ch <= "\u9fff"})
    else:
        tokens = sorted({w for p in reserved for w in p.split() if w.isalpha() and len(w) > 2})
    half = len(reserved) // 2
    return Material(lang, articles, reserved[:half], reserved[half:], tokens)


_ZH_NAME_A = "新华 东方 南方 阳光 华夏 神州 金陵 长江 黄河 天府 齐鲁 燕赵 中原 岭南 江南 北国 海峡 星辰 青年 时代".split()
_ZH_NAME_B = "网 在线 资讯网 新闻网 门户 视窗 热线 信息港".split()
_ZH_NAV = "首页 新闻 国内 国际 财经 体育 娱乐 科技 教育 健康 汽车 房产 旅游 文化 军事 社会 评论 图片 视频 论坛 博客 读书 女性 游戏".split()
_EN_NAME_A = "Morning Evening Daily Pacific Atlantic Northern Capital Metro Harbor Summit Pioneer Liberty Union Coastal Valley Prairie".split()
_EN_NAME_B = (
    "Herald Times Post Chronicle Gazette Tribune Observer Courier Journal Dispatch Review".split()
)
_EN_NAV = "Home News World Business Markets Tech Science Health Sports Culture Opinion Travel Style Video Podcasts Weather Local Education Books Autos".split()
_ZH_SPECS = "品牌 型号 颜色 尺寸 重量 材质 产地 保修 电源 功率 屏幕 内存 容量 包装清单".split()
_EN_SPECS = "Brand|Model|Colour|Dimensions|Weight|Material|Made in|Warranty|Power|Screen|Memory|Capacity|In the box".split(
    "|"
)
_ZH_PRODUCTS = "笔记本电脑 数码相机 手机 电视机 洗衣机 电冰箱 空调 微波炉 吸尘器 电饭煲 打印机 显示器 音箱 耳机 平板电脑 投影仪".split()
_EN_PRODUCTS = "Laptop|Digital Camera|Smartphone|Television|Washing Machine|Refrigerator|Air Conditioner|Microwave Oven|Vacuum Cleaner|Rice Cooker|Printer|Monitor|Speaker|Headphones|Tablet|Projector".split(
    "|"
)


def _clip(text: str, lang: str, n: int) -> str:
    if lang == "zh":
        return title_of(text, lang)[:n]
    words = text.split()
    return " ".join(words[: max(4, n // 7)])


def _make_site(src: Material, rng: random.Random, index: int) -> Site:
    lang = src.lang
    pool = src.template_text
    if lang == "zh":
        name = rng.choice(_ZH_NAME_A) + rng.choice(_ZH_NAME_B)
        slogan = _clip(rng.choice(pool), lang, 16)
        nav = rng.sample(_ZH_NAV, rng.randint(9, 14))
        footer = (
            f"关于我们 | 联系我们 | 广告服务 | 网站地图 | 招聘信息 | 法律声明 | 意见反馈 "
            f"版权所有 © 1998-2008 {name} 未经授权禁止转载 "
            f"京ICP证{rng.randint(10000, 99999)}号 互联网新闻信息服务许可证{rng.randint(1000, 9999)} "
            f"违法和不良信息举报电话：010-{rng.randint(60000000, 69999999)}"
        )
        ads = [f"【广告】{_clip(rng.choice(pool), lang, 18)}" for _ in range(4)]
        policy = (
            f"配送说明：{name}商城全场满99元包邮，下单后48小时内发货。售后服务：七天无理由退换货，"
            "全国联保，凭发票享受厂家保修。支付方式：货到付款、网上银行、支付宝。"
        )
        sidebar_title = rng.choice(["热门排行", "今日要闻", "相关新闻", "编辑推荐", "热点专题"])
    else:
        name = f"The {rng.choice(_EN_NAME_A)} {rng.choice(_EN_NAME_B)}"
        slogan = _clip(rng.choice(pool), lang, 60)
        nav = rng.sample(_EN_NAV, rng.randint(9, 14))
        footer = (
            "About us | Contact | Advertise | Site map | Careers | Terms of use | Privacy policy | "
            f"Cookie settings. Copyright © 1998-2008 {name}. All rights reserved. "
            "Reproduction in whole or in part without permission is prohibited. "
            f"Registered office: {rng.randint(1, 999)} Market Street."
        )
        ads = [f"Advertisement: {_clip(rng.choice(pool), lang, 60)}" for _ in range(4)]
        policy = (
            f"Delivery: free standard shipping on orders over $49 from {name} Store; orders ship "
            "within two business days. Returns: 30-day returns, manufacturer warranty honoured "
            "with proof of purchase. Payment: all major cards, PayPal and gift cards accepted."
        )
        sidebar_title = rng.choice(
            ["Most read", "Top stories", "Related", "Editor's picks", "Trending"]
        )
    sidebar_pool = [_clip(p, lang, 22 if lang == "zh" else 70) for p in rng.sample(pool, 12)]
    domain = f"site{index:02d}.example.{'cn' if lang == 'zh' else 'com'}"
    css = f".c{rng.randint(100, 999)}{{margin:0 auto;width:{rng.choice([960, 980, 1000])}px}}"
    return Site(
        name,
        domain,
        lang,
        slogan,
        nav,
        sidebar_title,
        sidebar_pool,
        footer,
        ads,
        policy,
        rng.randint(0, 1),
        css,
    )


def site_templates(src: Material, seed: int, n: int = 12) -> list[Site]:
    rng = random.Random(f"sites/{src.lang}/{seed}")
    return [_make_site(src, rng, i) for i in range(n)]


def _esc(text: str) -> str:
    return htmllib.escape(text, quote=False)


def render_page(
    site: Site,
    rng: random.Random,
    *,
    article: Article | None = None,
    product: Product | None = None,
) -> str:
    """An HTML page of ``site`` around an article or a product (head/tail nav, sidebar, footer)."""
    lang = site.lang
    zh = lang == "zh"
    if article is not None:
        title = article.title
        body = "".join(f"<p>{_esc(p)}</p>\n" for p in article.paragraphs)
        date = f"1998-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}"
        meta = (
            f"{date} 来源：{site.name} 编辑：{rng.choice('王李张刘陈杨赵黄周吴')}{rng.choice('明华强军平芳丽静')}"
            if zh
            else f"Published {date} | By staff reporter | {site.name}"
        )
        share = (
            "分享到：新浪微博 腾讯微博 QQ空间 人人网 打印本页 关闭窗口"
            if zh
            else "Share: Twitter Facebook Email Print"
        )
        main = f'<h1>{_esc(title)}</h1>\n<div class="meta">{_esc(meta)}</div>\n<div class="content">\n{body}</div>\n<div class="share">{share}</div>'
    elif product is not None:
        title = product.name
        rows = "".join(f"<tr><th>{_esc(k)}</th><td>{_esc(v)}</td></tr>" for k, v in product.specs)
        desc = "".join(f"<p>{_esc(p)}</p>" for p in product.description)
        buy = "加入购物车 立即购买 收藏商品" if zh else "Add to cart | Buy now | Add to wish list"
        price_label = "商城价：" if zh else "Our price: "
        spec_label = "规格参数" if zh else "Specifications"
        desc_label = "商品介绍" if zh else "Product description"
        main = (
            f'<h1>{_esc(title)}</h1>\n<div class="price">{price_label}{_esc(product.price)}</div>\n'
            f'<div class="buy">{buy}</div>\n<h2>{desc_label}</h2>\n<div class="desc">{desc}</div>\n'
            f'<h2>{spec_label}</h2>\n<table class="specs">{rows}</table>\n'
            f'<div class="policy">{_esc(site.shop_policy)}</div>'
        )
    else:
        raise ValueError("render_page needs an article or a product")
    picks = rng.sample(site.sidebar_pool, rng.randint(5, 8))
    sidebar = (
        f'<div class="sidebar"><h3>{_esc(site.sidebar_title)}</h3><ul>'
        + "".join(
            f'<li><a href="/a/{rng.randint(1000, 9999)}.html">{_esc(h)}</a></li>' for h in picks
        )
        + f'</ul><div class="ad">{_esc(rng.choice(site.ads))}</div></div>'
    )
    nav = "".join(f'<li><a href="/{i}/">{_esc(n)}</a></li>' for i, n in enumerate(site.nav))
    crumb = f"{'当前位置' if zh else 'You are here'}: {site.nav[0]} &gt; {site.nav[1]} &gt; {'正文' if zh else 'Article'}"
    content = f'<div class="main">\n{main}\n</div>'
    columns = content + "\n" + sidebar if site.layout == 0 else sidebar + "\n" + content
    return (
        f'<!DOCTYPE html>\n<html lang="{"zh-CN" if zh else "en"}"><head><meta charset="utf-8">'
        f"<title>{_esc(title)} - {_esc(site.name)}</title><style>{site.css}</style>"
        f"<script>var _stat={{site:'{site.domain}',page:{rng.randint(1, 10**6)}}};</script></head>\n"
        f'<body><div class="header"><a href="/" class="logo">{_esc(site.name)}</a> '
        f'<span class="slogan">{_esc(site.slogan)}</span></div>\n'
        f'<ul class="nav">{nav}</ul>\n<div class="crumb">{crumb}</div>\n{columns}\n'
        f'<div class="footer">{_esc(site.footer)}</div>\n'
        f"<!-- {site.domain} cache {rng.randint(1, 10**9)} --></body></html>\n"
    )


class Descriptions:
    """Product descriptions drawn without replacement, so two products never share one
    (until the reserved paragraphs run out; then they are reused in a new order)."""

    def __init__(self, src: Material, rng: random.Random) -> None:
        self.pool = list(src.product_text)
        self.rng = rng
        self.queue: list[str] = []

    def take(self, k: int) -> tuple[str, ...]:
        out: list[str] = []
        while len(out) < k:
            if not self.queue:
                self.queue = self.pool[:]
                self.rng.shuffle(self.queue)
            out.append(self.queue.pop())
        return tuple(out)


def make_product(src: Material, rng: random.Random, descriptions: Descriptions) -> Product:
    zh = src.lang == "zh"
    brand = (
        title_of(rng.choice(src.template_text), "zh")[:2]
        if zh
        else rng.choice(src.template_text).split()[0].strip(",.").title()
    )
    kind = rng.choice(_ZH_PRODUCTS if zh else _EN_PRODUCTS)
    model = f"{rng.choice('ABCDEFGHKMNPRSTVXZ')}{rng.randint(100, 9999)}"
    name = f"{brand} {kind} {model}"
    labels = rng.sample(_ZH_SPECS if zh else _EN_SPECS, 8)
    specs = tuple(
        (k, f"{brand}{model}-{rng.randint(1, 99)}" if i < 2 else f"{rng.randint(1, 999)}")
        for i, k in enumerate(labels)
    )
    desc = descriptions.take(rng.randint(1, 2))
    price = f"{'¥' if zh else '$'}{rng.randint(99, 9999)}.00"
    return Product(name, price, specs, desc)
