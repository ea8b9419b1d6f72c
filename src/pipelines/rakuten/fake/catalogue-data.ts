/**
 * The fixed part of the fake catalogue: a small genre tree with Rakuten-like ids and gift
 * goods, tag groups, and the words item and shop names are made of.
 */

/** A leaf genre of the fake tree, with what its items are called and cost. */
export interface LeafGenreSpec {
  id: number;
  name: string;
  nouns: readonly string[];
  /** Price range in yen. */
  price: readonly [number, number];
}

/** A top-level genre and its leaves. */
export interface TopGenreSpec {
  id: number;
  name: string;
  leaves: readonly LeafGenreSpec[];
}

export const GENRE_TREE: readonly TopGenreSpec[] = [
  {
    id: 100227,
    name: "食品",
    leaves: [
      {
        id: 100283,
        name: "スイーツ・お菓子",
        nouns: ["バウムクーヘン", "チョコレート詰め合わせ", "焼き菓子ギフト", "どら焼き", "羊羹"],
        price: [980, 5400],
      },
      {
        id: 201351,
        name: "肉・肉加工品",
        nouns: ["黒毛和牛 すき焼き用", "ローストビーフ", "ハム詰め合わせ", "松阪牛 切り落とし"],
        price: [2980, 15000],
      },
      {
        id: 100236,
        name: "魚介類・水産加工品",
        nouns: ["いくら醤油漬け", "うなぎ蒲焼", "明太子", "ずわいがに"],
        price: [1980, 12800],
      },
      {
        id: 100240,
        name: "フルーツ・果物",
        nouns: ["シャインマスカット", "さくらんぼ 佐藤錦", "温州みかん", "メロン"],
        price: [2480, 9800],
      },
    ],
  },
  {
    id: 510915,
    name: "ビール・洋酒",
    leaves: [
      {
        id: 510916,
        name: "ビール・発泡酒",
        nouns: ["クラフトビール 飲み比べセット", "地ビール 6本セット"],
        price: [2980, 6800],
      },
      {
        id: 510901,
        name: "ワイン",
        nouns: ["赤ワイン フルボディ", "スパークリングワイン", "白ワイン 辛口"],
        price: [1680, 9800],
      },
    ],
  },
  {
    id: 510903,
    name: "日本酒・焼酎",
    leaves: [
      {
        id: 201463,
        name: "日本酒",
        nouns: ["純米大吟醸 720ml", "特別純米酒 飲み比べ"],
        price: [1980, 8800],
      },
      {
        id: 201464,
        name: "焼酎",
        nouns: ["芋焼酎 1800ml", "麦焼酎 名入れボトル"],
        price: [1580, 6800],
      },
    ],
  },
  {
    id: 100939,
    name: "美容・コスメ・香水",
    leaves: [
      {
        id: 210459,
        name: "スキンケア",
        nouns: ["美容液", "化粧水 セット", "ハンドクリーム ギフト"],
        price: [1200, 8800],
      },
      {
        id: 100960,
        name: "香水・フレグランス",
        nouns: ["オードパルファム 50ml", "ルームフレグランス"],
        price: [2200, 12000],
      },
    ],
  },
  {
    id: 100804,
    name: "インテリア・寝具・収納",
    leaves: [
      {
        id: 101862,
        name: "タオル",
        nouns: ["今治タオル フェイスタオル", "バスタオル 2枚セット", "ガーゼタオル"],
        price: [1100, 5500],
      },
      {
        id: 215566,
        name: "インテリア小物",
        nouns: ["アロマディフューザー", "フォトフレーム", "ドライフラワー"],
        price: [1500, 6800],
      },
    ],
  },
  {
    id: 558944,
    name: "キッチン用品・食器・調理器具",
    leaves: [
      {
        id: 215783,
        name: "グラス・タンブラー",
        nouns: ["江戸切子 ロックグラス", "名入れ タンブラー", "ペアグラス"],
        price: [2200, 16500],
      },
      {
        id: 558945,
        name: "食器",
        nouns: ["有田焼 夫婦茶碗", "マグカップ ペア", "波佐見焼 プレート"],
        price: [1650, 8800],
      },
    ],
  },
  {
    id: 100433,
    name: "花・ガーデン・DIY",
    leaves: [
      {
        id: 100434,
        name: "花束・アレンジメント",
        nouns: ["バラの花束", "プリザーブドフラワー", "胡蝶蘭 3本立ち"],
        price: [3300, 22000],
      },
    ],
  },
];

/** Tag groups with their tags (id, name); parent ids are 0 in this fake. */
export const TAG_GROUPS: readonly {
  id: number;
  name: string;
  tags: readonly (readonly [number, string])[];
}[] = [
  {
    id: 1000041,
    name: "サイズ（S/M/L）",
    tags: [
      [1000317, "SS"],
      [1000318, "S"],
      [1000319, "M"],
      [1000320, "L"],
    ],
  },
  {
    id: 1000064,
    name: "ギフト用途",
    tags: [
      [1000901, "誕生日"],
      [1000902, "母の日"],
      [1000903, "父の日"],
      [1000904, "結婚祝い"],
      [1000905, "出産祝い"],
      [1000906, "お中元"],
      [1000907, "お歳暮"],
      [1000908, "敬老の日"],
    ],
  },
  {
    id: 1000072,
    name: "ラッピング",
    tags: [
      [1001101, "のし対応"],
      [1001102, "ギフトボックス"],
      [1001103, "メッセージカード"],
    ],
  },
  {
    id: 1000080,
    name: "産地",
    tags: [
      [1001201, "北海道"],
      [1001202, "京都府"],
      [1001203, "愛媛県"],
      [1001204, "鹿児島県"],
    ],
  },
];

/** Leading tags of item names. */
export const NAME_PREFIXES = [
  "【送料無料】",
  "【あす楽】",
  "【ギフト対応】",
  "【名入れ無料】",
  "",
  "",
];
/** Places and brands in names. */
export const ORIGINS = [
  "北海道産",
  "京都",
  "今治",
  "有田",
  "鹿児島県産",
  "信州",
  "老舗",
  "職人手作り",
  "",
];
/** Trailing words of names. */
export const NAME_SUFFIXES = [
  "ギフトセット",
  "詰め合わせ",
  "プレゼント",
  "内祝い",
  "お返し",
  "贈答用",
];
/** Parts of shop names. */
export const SHOP_PLACES = ["京都", "銀座", "札幌", "博多", "金沢", "横浜", "仙台", "神戸"];
export const SHOP_KINDS = ["ギフト", "和菓子", "グルメ", "雑貨", "花", "酒店", "器"];
export const SHOP_SUFFIXES = ["本舗", "堂", "屋", "ストア", "専門店", "商店"];
/** Romaji parts of shop codes. */
export const SHOP_CODE_PARTS = [
  "hanairo",
  "kyoto",
  "ginza",
  "sapporo",
  "hakata",
  "kanazawa",
  "yokohama",
  "gift",
  "zakka",
  "sakaya",
  "utsuwa",
  "wagashi",
  "gourmet",
  "kobe",
  "sendai",
  "nagomi",
];
/** Catch copies (some with HTML entities, as real ones carry). */
export const CATCHCOPIES = [
  "大切な方への贈り物に",
  "ギフト包装無料&nbsp;&gt;&gt;あす楽対応",
  "楽天ランキング1位獲得",
  "のし&amp;メッセージカード対応",
  "",
];
