"""Language profiles (lang=): every per-example P/R/F equals multilingual-rouge 0.0.1's
``RougeScorer(types, use_stemmer=..., lang=...)`` (XL-Sum's multilingual ROUGE), exactly.

The peer gets the same data as we do (it would otherwise download or lack them): NLTK's stopword
lists from text.lang.data written as an nltk_data folder, the Bengali rules from text.lang.data
through its own rule parser, and unidic-lite's dictionary for fugashi (its wheel pulls in the
package ``unidic``, whose dictionary is a separate download).

Where the texts come from: for each language, words drawn from its script's letters (Unicode
blocks) with the suffixes its stemmer strips (Snowball endings, the Hindi suffix classes, the
Bengali rules), hand-written sentences, Thai words from pythainlp's bundled word list; mixed with
ASCII and Unicode punctuation, several digit systems, symbols, Latin and CJK words, emoji,
control and format characters, odd whitespace, newlines, upper case, and empty texts.
"""
import hashlib
import io
import os
import random
import subprocess
import sys
import tempfile
import warnings

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import needed, staged

TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
KEYS = ("precision", "recall", "fmeasure")
PAIRS = 200
CI = bool(os.environ.get("CI"))

lang_module = staged("text.lang")
lang_data = staged("text.lang.data")


need = needed  # the module; a missing one skips locally and fails in CI


# --------------------------------------------------------------------------------------------
# The peer, given the vendored data

def prepare_peer():
    """Give multilingual-rouge the vendored data (see the module docstring); returns its
    rouge_scorer module."""
    import nltk

    folder = tempfile.mkdtemp(prefix="nltk_data_")
    os.makedirs(os.path.join(folder, "corpora", "stopwords"))
    for language, (_, text) in lang_data.STOPWORDS.items():
        with open(os.path.join(folder, "corpora", "stopwords", language), "w",
                  encoding="utf-8", newline="") as f:
            f.write(text)
    nltk.data.path.insert(0, folder)

    from multilingual_rouge import rouge_scorer, stemmers
    from multilingual_rouge.bengali_stemmer import RafiStemmer

    def bengali_init(self):  # the wheel lacks common.rules: give it the vendored file
        self.stemmer = RafiStemmer(io.StringIO(lang_data.BENGALI_RULES))

    stemmers.BengaliStemmer.__init__ = bengali_init
    try:
        import unidic
        import unidic_lite

        unidic.DICDIR = unidic_lite.DICDIR
    except ImportError:  # without the package unidic, fugashi takes unidic-lite itself
        pass
    return rouge_scorer


@pytest.fixture(scope="session")
def xlsum():
    need("multilingual_rouge")
    rouge_scorer = prepare_peer()
    scorers = {}

    def score(lang, use_stemmer, pairs, types=TYPES):
        key = (lang, use_stemmer, tuple(types))
        if key not in scorers:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                scorers[key] = rouge_scorer.RougeScorer(list(types), use_stemmer=use_stemmer,
                                                        lang=lang)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [scorers[key].score(ref, pred) for pred, ref in pairs]

    return score


def ours(metric, lang, use_stemmer, pairs, types=TYPES, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return metric.compute(predictions=[p for p, _ in pairs], references=[r for _, r in pairs],
                              rouge_types=list(types), lang=lang, use_stemmer=use_stemmer,
                              use_aggregator=False, detailed=True, **options)


def differences(mine, theirs, pairs, types=TYPES):
    out = []
    for i, row in enumerate(theirs):
        for t in types:
            for k in KEYS:
                if mine[t][k][i] != getattr(row[t], k):
                    out.append((i, t, k, mine[t][k][i], getattr(row[t], k), pairs[i]))
    return out


# --------------------------------------------------------------------------------------------
# Texts

def _chars(*ranges):
    return "".join(chr(c) for lo, hi in ranges for c in range(lo, hi + 1)
                   if chr(c).isprintable())


LATIN = "abcdefghijklmnopqrstuvwxyz"
CYRILLIC = _chars((0x0430, 0x044F)) + "ё"
ARABIC = _chars((0x0621, 0x063A), (0x0641, 0x064A))
DEVANAGARI = _chars((0x0905, 0x0939))
DEVANAGARI_SIGNS = _chars((0x093E, 0x094D)) + "\u0902\u0901"
ETHIOPIC = _chars((0x1200, 0x1350))
MYANMAR = _chars((0x1000, 0x102A))
MYANMAR_SIGNS = _chars((0x102B, 0x103E))

SCRIPTS = {  # code: (letters, signs that follow a letter, suffixes, sentences)
    "am": (ETHIOPIC, "", ["ች", "ን", "ው"], ["አዲስ አበባ የኢትዮጵያ ዋና ከተማ ናት።",
                                            "ዛሬ ዝናብ ዘነበ፣ ሰዎች ቤት ውስጥ ቆዩ።"]),
    "ar": (ARABIC, _chars((0x064B, 0x0652)), ["ون", "ات", "ين", "ها", "هم", "كم", "ة", "ية",
                                                "تان"],
           ["القاهرة هي عاصمة مصر، والمكتبات فيها كبيرة.",
            "قال المتحدث إن الحكومة ستعلن خطتها الاقتصادية الجديدة غداً؟"]),
    "az": (LATIN + "əçğıöşü", "", ["lar", "lər", "dır", "da"],
           ["Bakı Azərbaycanın paytaxtıdır.", "Prezident yeni qərar imzalayıb."]),
    "bn": (_chars((0x0985, 0x09B9)), _chars((0x09BE, 0x09CC)) + "\u09CD\u0982", None,
           ["তোমার সাথে দেখা হয়ে ভালো লাগলো।", "বাংলাদেশের রাজধানী ঢাকা, এটা অনেক বড় শহর।",
            "ছেলেরা মাঠে খেলছে আর মেয়েরা গান গাইছিলেন।"]),
    "my": (MYANMAR, MYANMAR_SIGNS + "\u1039\u103a\u1037", [],
           ["မြန်မာနိုင်ငံ၏ မြို့တော်သည် နေပြည်တော် ဖြစ်သည်။",
            "ရန်ကုန်မြို့တွင် မိုးရွာနေသည်၊ လူများ အိမ်တွင်နေကြသည်။"]),
    "zh": ("的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动"
           "同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理"
           "起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事"
           "平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问"
           "意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件"
           "长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先"
           "回则任取据处队南给色光门即保治北造百规热领七海口东导器压志世金增争济阶油思术极交受联什认"
           "六共权收证改清美再采转更单风切打白教速花带安场身车例真务具万每目至达走积示议声报斗完类八"
           "离华名确才科张信马节话米整空元况今集温传土许步群广石记需段研界拉林律叫且究观越织装影算",
           "", [], ["我们今天去公园散步。\n天气很好！", "北京是中国的首都，人口超过两千万。",
                    "新冠疫情（COVID-19）在2020年爆发，全球经济受到影响。"]),
    "en": (LATIN, "", ["ing", "ed", "s", "es", "ly", "ation", "ness", "ment", "ful", "ies",
                       "ational", "izer", "ousness"],
           ["The cats are running quickly (in 2024) to their houses!",
            "Officials said the government's new economic plan would be announced tomorrow."]),
    "fr": (LATIN + "éèàçâêîôûëïü", "", ["ement", "ation", "euse", "ités", "aux", "ant", "er",
                                         "ir", "ées", "issement"],
           ["Le président a annoncé des mesures économiques « importantes » hier soir.",
            "Les enfants jouaient dans le jardin pendant que leurs parents travaillaient."]),
    "gu": (_chars((0x0A85, 0x0AB9)), _chars((0x0ABE, 0x0ACC)) + "\u0ACD", [],
           ["ગુજરાત ભારતનું એક રાજ્ય છે.", "આજે વરસાદ પડ્યો."]),
    "ha": (LATIN + "ɓɗƙƴ", "", [], ["Shugaban kasa ya gana da 'yan jarida a Abuja.",
                                     "Ƙungiyar ta ɗauki matakin."]),
    "hi": (DEVANAGARI, DEVANAGARI_SIGNS, None,
           ["भारत की राजधानी नई दिल्ली है।", "लड़कियाँ कल स्कूल जाएंगी और पढ़ाई करेंगी।",
            "सरकार ने नई योजनाओं की घोषणा की, जिससे किसानों को लाभ होगा।"]),
    "ig": (LATIN + "ịọụṅ", "", [], ["Onye isi ala kwuru na ọ ga-enyere ndị mmadụ aka.",
                                     "Ụmụaka na-agụ akwụkwọ."]),
    "id": (LATIN, "", ["kan", "nya", "an", "lah"],
           ["Presiden Indonesia mengumumkan kebijakan baru di Jakarta.",
            "Anak-anak bermain di taman."]),
    "ja": (_chars((0x3041, 0x3096), (0x30A1, 0x30FA)) + "日本語東京今天気公園行人年月", "", [],
           ["今日は良い天気ですね。\n公園に行きましょう", "東京オリンピックは2021年に開催された。",
            "彼女は「ありがとう」と言って、笑顔で帰りました！"]),
    "rn": (LATIN, "", [], ["Umukuru w'igihugu yavuze ko amahoro ari ngombwa.",
                           "Abana barakina."]),
    "ko": (_chars((0xAC00, 0xAC00 + 600)), "", [],
           ["서울은 대한민국의 수도입니다.", "오늘 날씨가 아주 좋네요!"]),
    "ky": (CYRILLIC + "ңөү", "", ["лар", "дын"], ["Бишкек Кыргызстандын борбору.",
                                                 "Президент жаңы мыйзамга кол койду."]),
    "mr": (DEVANAGARI, DEVANAGARI_SIGNS + "\u0933", [], ["महाराष्ट्राची राजधानी मुंबई आहे.",
                                                         "आज पाऊस पडला."]),
    "ne": (DEVANAGARI, DEVANAGARI_SIGNS, [], ["नेपालको राजधानी काठमाडौं हो।",
                                               "आज पानी पर्‍यो।"]),
    "om": (LATIN, "", [], ["Finfinneen magaalaa guddoo Itoophiyaati.",
                           "Barattoonni mana barumsaa deeman."]),
    "ps": (ARABIC + "ټډړږښګڼۍې", "", [], ["کابل د افغانستان پلازمینه ده.",
                                          "نن ورځ باران و."]),
    "fa": (ARABIC + "پچژگکی", "", ["ها", "های"], ["تهران پایتخت ایران است.",
                                                   "امروز هوا بسیار خوب است؛ مردم به پارک رفتند."]),
    "pcm": (LATIN, "", [], ["Di president don talk say e go help pipo.",
                            "Wetin dey happen for Lagos?"]),
    "pt": (LATIN + "áâãàçéêíóôõú", "", ["ção", "ções", "mente", "ando", "ado", "idade", "os",
                                         "as", "eiro"],
           ["O presidente anunciou novas medidas econômicas ontem à noite.",
            "As crianças brincavam no parque enquanto os pais trabalhavam."]),
    "pa": (_chars((0x0A05, 0x0A39)), _chars((0x0A3E, 0x0A4C)) + "\u0A4D\u0A70\u0A71", [],
           ["ਪੰਜਾਬ ਭਾਰਤ ਦਾ ਇੱਕ ਰਾਜ ਹੈ।", "ਅੱਜ ਮੀਂਹ ਪਿਆ।"]),
    "ru": (CYRILLIC, "", ["ами", "ого", "ому", "ыми", "ость", "ение", "ться", "ский", "ая",
                          "ов"],
           ["Москва — столица России, красивые города и широкие улицы.",
            "Президент заявил, что правительство объявит новый экономический план."]),
    "gd": (LATIN + "àèìòù", "", [], ["Tha Dùn Èideann na phrìomh-bhaile na h-Alba.",
                                      "Bha an t-sìde math an-diugh."]),
    "sr": (CYRILLIC + "ђјљњћџ", "", [], ["Београд је главни град Србије.",
                                          "Данас је лепо време."]),
    "sr-latn": (LATIN + "čćđšž", "", [], ["Beograd je glavni grad Srbije.",
                                           "Danas je lepo vreme."]),
    "si": (_chars((0x0D85, 0x0DC6)), _chars((0x0DCF, 0x0DDF)) + "\u0DCA", [],
           ["කොළඹ ශ්‍රී ලංකාවේ අගනුවරයි.", "අද වැස්ස වැටුණා."]),
    "so": (LATIN, "", [], ["Muqdisho waa caasimadda Soomaaliya.",
                           "Madaxweynaha ayaa sheegay in dowladdu ay caawin doonto dadka."]),
    "es": (LATIN + "áéíñóúü", "", ["ción", "ciones", "mente", "ando", "ado", "idad", "os",
                                    "as", "ísimo"],
           ["¿Dónde está la biblioteca? ¡El presidente anunció nuevas medidas!",
            "Los niños jugaban en el parque mientras sus padres trabajaban."]),
    "sw": (LATIN, "", [], ["Nairobi ni mji mkuu wa Kenya.", "Watoto wanacheza uwanjani."]),
    "ta": (_chars((0x0B85, 0x0BB9)), _chars((0x0BBE, 0x0BCD)), [],
           ["சென்னை தமிழ்நாட்டின் தலைநகரம்.", "இன்று மழை பெய்தது."]),
    "te": (_chars((0x0C05, 0x0C39)), _chars((0x0C3E, 0x0C4D)), [],
           ["హైదరాబాద్ తెలంగాణ రాజధాని.", "ఈ రోజు వర్షం పడింది."]),
    "th": (None, "", [], ["วันนี้อากาศดีมาก เราไปเดินเล่นที่สวน",
                          "กรุงเทพมหานครเป็นเมืองหลวงของประเทศไทย ประชากรประมาณ ๑๐ ล้านคน"]),
    "ti": (ETHIOPIC, "", [], ["ኣስመራ ርእሰ ከተማ ኤርትራ እያ።", "ሎሚ ዝናብ ዘኒቡ።"]),
    "tr": (LATIN + "çğıöşüâî", "", ["lar", "ler", "ın", "in", "dan", "den", "ımız", "leri",
                                     "nın", "ydı", "mişti", "lerinden"],
           ["Türkiye'nin başkenti Ankara'dır, kitaplarımızı okuyoruz.",
            "İstanbul'daki öğrenciler sınavlarına çalışıyorlardı."]),
    "uk": (CYRILLIC.replace("ы", "").replace("э", "") + "іїєґ", "", [],
           ["Київ — столиця України.", "Сьогодні гарна погода."]),
    "ur": (ARABIC + "ٹڈڑںھےۓپچژگک", "", [], ["اسلام آباد پاکستان کا دارالحکومت ہے۔",
                                              "آج موسم بہت اچھا ہے۔"]),
    "uz": (LATIN + "ʻ", "", [], ["Toshkent Oʻzbekistonning poytaxti.",
                                 "Bugun havo yaxshi."]),
    "vi": (LATIN + "ăâđêôơưàáảãạằắẳẵặầấẩẫậèéẻẽẹềếểễệìíỉĩịòóỏõọồốổỗộờớởỡợùúủũụừứửữựỳýỷỹỵ", "",
           [], ["Hà Nội là thủ đô của Việt Nam.", "Hôm nay trời đẹp quá!"]),
    "cy": (LATIN + "ŵŷâêîôû", "", [], ["Caerdydd yw prifddinas Cymru.",
                                        "Mae'r tywydd yn braf heddiw."]),
    "yo": (LATIN + "ẹọṣ", "\u0300\u0301", [], ["Èkó jẹ́ ìlú ńlá ní Nàìjíríà.",
                                                  "Àwọn ọmọdé ń ṣeré."]),
    "da": (LATIN + "æøå", "", ["erne", "ende", "hed", "else", "ene", "er", "et"],
           ["København er Danmarks hovedstad.", "Børnene legede i haven."]),
    "nl": (LATIN + "ëïé", "", ["heden", "ingen", "lijk", "ende", "en", "je", "baar"],
           ["Amsterdam is de hoofdstad van Nederland.", "De kinderen speelden in de tuin."]),
    "fi": (LATIN + "äö", "", ["ssa", "ssä", "lla", "llä", "sta", "stä", "ksi", "inen",
                              "ista"],
           ["Helsinki on Suomen pääkaupunki.", "Lapset leikkivät puistossa."]),
    "de": (LATIN + "äöüß", "", ["ungen", "lich", "keit", "heit", "end", "ern", "isch", "en"],
           ["Berlin ist die Hauptstadt Deutschlands.", "Die Kinder spielten im Garten."]),
    "hu": (LATIN + "áéíóöőúüű", "", ["ban", "ben", "nak", "nek", "ból", "ből", "ság", "ok"],
           ["Budapest Magyarország fővárosa.", "A gyerekek a kertben játszottak."]),
    "it": (LATIN + "àèéìòù", "", ["zione", "zioni", "mente", "ando", "ato", "ità", "issimo"],
           ["Roma è la capitale d'Italia.", "I bambini giocavano nel giardino."]),
    "no": (LATIN + "æøå", "", ["ene", "ende", "het", "else", "er", "et", "ede"],
           ["Oslo er Norges hovedstad.", "Barna lekte i hagen."]),
    "ro": (LATIN + "ăâîșț", "", ["ului", "elor", "ilor", "ește", "ează", "ile", "ătate"],
           ["București este capitala României.", "Copiii se jucau în grădină."]),
    "sv": (LATIN + "åäö", "", ["heten", "arna", "erna", "ande", "ade", "ar", "or"],
           ["Stockholm är Sveriges huvudstad.", "Barnen lekte i trädgården."]),
}

PUNCTUATION = list(".,!?;:'\"()[]{}-_/\\@#$%^&*~`|<>+=") + list("«»—–…‘’“”„¿¡·•§¶†。、，！？「」《》（）।॥،؛؟።፣၊။")
SYMBOLS = list("©°€√±×÷™♥→") + ["😀", "👍🏽"]
DIGITS = ["0", "7", "42", "2024", "3.14", "1,000", "½", "²", "١٢٣", "१२३", "০১২", "１２", "๑๐",
          "၁၂"]
MIXED = ["COVID-19", "iPhone", "BBC", "UN", "NATO", "Москва", "北京", "東京", "İstanbul",
         "ΟΔΟΣ", "straße", "naïve", "x²", "e-mail", "A4", "3D"]
NOISE = ["\x00", "\u200b", "\u200c", "\u200d", "\ufeff", "\ufffd", "\x7f", "\u00ad", "\x1f"]
SPACES = [" ", " ", " ", "  ", "\t", "\u00a0", "\u3000", "\u2009", "\r\n", "\u2028", "\x0b",
          "\x85"]
EMPTY = ["", " ", "\n", "...", "।", "!!", "\n\n", " \t ", "\u200b"]


@pytest.fixture(scope="session")
def thai_words():
    need("pythainlp")
    from pythainlp.corpus import thai_words

    return sorted(thai_words())


def _suffixes(code):
    suffixes = SCRIPTS[code][2]
    if suffixes is not None:
        return suffixes
    if code == "hi":
        return [s for group in lang_module.HINDI_SUFFIXES.values() for s in group]
    stemmer = lang_module.BengaliStemmer()  # bn: the rules' suffixes
    return [s for group in stemmer.groups for s in group]


def _word(rng, code, thai):
    letters, signs, _, sentences = SCRIPTS[code]
    roll = rng.random()
    if roll < 0.15:
        return rng.choice(rng.choice(sentences).split())
    if roll < 0.2:
        return rng.choice(DIGITS)
    if roll < 0.24:
        return rng.choice(MIXED)
    if roll < 0.26:
        return rng.choice(SYMBOLS)
    if code == "th":
        return rng.choice(thai)
    word = ""
    for _ in range(rng.randint(1, 5)):
        word += rng.choice(letters)
        if signs and rng.random() < 0.5:
            word += rng.choice(signs)
    suffixes = _suffixes(code)
    if suffixes and rng.random() < 0.5:
        word += rng.choice(suffixes)
    language = lang_module.resolve_language(code)
    if language.stemmer == "snowball" and rng.random() < 0.15:
        word = rng.choice(lang_module.stopword_list(language.name))
    if rng.random() < 0.1:
        word = word.upper() if rng.random() < 0.5 else word.capitalize()
    return word


def _inflect(rng, code, word):
    """Another form of the word: its suffix replaced or a suffix added (what stemmers undo)."""
    suffixes = _suffixes(code)
    if not suffixes:
        return word
    for suffix in sorted(suffixes, key=len, reverse=True):
        if word.endswith(suffix) and len(word) > len(suffix):
            return word[:-len(suffix)] + rng.choice(suffixes)
    return word + rng.choice(suffixes)


def _text(rng, code, thai, words):
    out = []
    for w in words:
        out.append(w)
        roll = rng.random()
        if roll < 0.12:
            out.append(rng.choice(PUNCTUATION))
        elif roll < 0.14:
            out.append(rng.choice(NOISE))
        if roll > 0.9 and code in ("zh", "ja", "th", "my"):
            continue  # scripts written without spaces
        out.append(rng.choice(SPACES) if rng.random() < 0.2 else " ")
    return "".join(out)


def language_pairs(code, thai, n=PAIRS, seed=0):
    """n (prediction, reference) pairs of a language, from a seeded generator."""
    rng = random.Random(f"{code}-{seed}")
    sentences = SCRIPTS[code][3]
    pairs = [(s, t) for s in sentences for t in sentences]  # the hand-written ones
    pairs += [(e, rng.choice(sentences)) for e in EMPTY] + [(rng.choice(sentences), e)
                                                           for e in EMPTY] + [("", "")]
    while len(pairs) < n:
        lines = []
        for _ in range(rng.randint(1, 3)):
            lines.append([_word(rng, code, thai) for _ in range(rng.randint(1, 18))])
        reference = "\n".join(_text(rng, code, thai, line) for line in lines)
        roll = rng.random()
        if roll < 0.7:  # a perturbed copy: drop, swap and replace words
            pred_lines = []
            for line in lines:
                line = [w for w in line if rng.random() > 0.2]
                for _ in range(rng.randint(0, 2)):
                    if len(line) > 1:
                        i, j = rng.randrange(len(line)), rng.randrange(len(line))
                        line[i], line[j] = line[j], line[i]
                line = [w if rng.random() > 0.15 else _word(rng, code, thai) for w in line]
                line = [w if rng.random() > 0.3 else _inflect(rng, code, w) for w in line]
                pred_lines.append(line)
            sep = "\n" if rng.random() < 0.6 else " "
            prediction = sep.join(_text(rng, code, thai, line) for line in pred_lines)
        elif roll < 0.95:
            prediction = _text(rng, code, thai, [_word(rng, code, thai)
                                                 for _ in range(rng.randint(1, 20))])
        else:
            prediction = rng.choice(EMPTY)
        pairs.append((prediction, reference))
    return pairs


# --------------------------------------------------------------------------------------------
# Parity

CODES = list(SCRIPTS)


def test_every_language_is_covered():
    assert sorted(CODES) == sorted(lang_module.LANGUAGE_CODES)


@pytest.mark.parametrize("code", CODES)
@pytest.mark.slow
def test_parity_with_multilingual_rouge(metric, xlsum, thai_words, code):
    language = lang_module.resolve_language(code)
    if language.segmenter in ("jieba", "fugashi", "pythainlp"):
        need({"fugashi": "fugashi"}.get(language.segmenter, language.segmenter))
    pairs = language_pairs(code, thai_words)
    assert len(pairs) >= PAIRS
    both = {}
    for use_stemmer in (False, True):
        mine = both[use_stemmer] = ours(metric, code, use_stemmer, pairs)
        theirs = xlsum(language.name, use_stemmer, pairs)
        assert differences(mine, theirs, pairs) == [], (code, use_stemmer)
    if language.stemmer:  # the texts exercise the stemmer
        changed = sum(a != b for a, b in zip(both[False]["rouge1"]["fmeasure"],
                                             both[True]["rouge1"]["fmeasure"]))
        assert changed >= 20, changed


@pytest.mark.parametrize("name", ["chinese_simplified", "chinese_traditional", "bangla",
                                  "turkce", "mundo", "serbian_latin", "scottish_gaelic"])
def test_aliases_and_xlsum_names(metric, xlsum, thai_words, name):
    """XL-Sum's dataset names and multilingual-rouge's aliases, given to both as they are."""
    code = lang_module.resolve_language(name).code
    pairs = language_pairs(code, thai_words, n=40, seed=1)
    for use_stemmer in (False, True):
        assert differences(ours(metric, name, use_stemmer, pairs),
                           xlsum(name, use_stemmer, pairs), pairs) == []


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(code=st.sampled_from(["en", "zh", "ja", "th", "my", "bn", "hi", "ar", "tr"]),
       use_stemmer=st.booleans(),
       texts=st.lists(st.text(st.characters(exclude_categories=("Cs",)), max_size=40),
                      min_size=2, max_size=2))
def test_parity_on_any_unicode(metric, xlsum, code, use_stemmer, texts):
    """Any characters (every Unicode category: the punctuation rule and the fallbacks)."""
    language = lang_module.resolve_language(code)
    pairs = [tuple(texts)]
    assert differences(ours(metric, code, use_stemmer, pairs),
                       xlsum(language.name, use_stemmer, pairs), pairs) == []


def test_multi_digit_ngrams_and_lsum_quirk(metric, xlsum):
    """The rougeLsum quirk, seen: a Chinese line without spaces is one rougeLsum token."""
    pairs = [("北京是中国的首都", "中国的首都是北京")]
    mine = ours(metric, "zh", False, pairs, types=["rouge1", "rougeLsum", "rouge3"])
    theirs = xlsum("chinese", False, pairs, types=["rouge1", "rougeLsum", "rouge3"])
    assert differences(mine, theirs, pairs, ["rouge1", "rougeLsum", "rouge3"]) == []
    assert mine["rougeLsum"]["fmeasure"][0] == 0.0 < mine["rouge1"]["fmeasure"][0]


def test_segmenter_fallback(metric, xlsum, monkeypatch):
    """A segmenter that finds no tokens: the default pre-tokenizer, and one warning."""
    need("pythainlp")
    from multilingual_rouge import tokenizers

    monkeypatch.setattr(tokenizers.ThaiTokenizer, "__call__", lambda self, text: [])
    thai = lang_module.LanguageTokenizer(lang_module.resolve_language("th"))
    monkeypatch.setattr(thai, "_segment", lambda text: [])
    monkeypatch.setattr(lang_module, "_language_tokenizer", lambda language: thai)
    # checked options are memoized with their tokenizer: an earlier lang="th" call's would
    # hold the real one (an empty memo here, the old one back after the test)
    monkeypatch.setattr(staged("options"), "_BUILT", {})
    pairs = [("วันนี้อากาศดีมาก 2024 abc", "วันนี้ อากาศดี 2024"), ("", "สวัสดี"), ("中文 ok", "中文")]
    theirs = xlsum("thai", False, pairs)
    with pytest.warns(staged("options").RougeWarning, match="found no tokens in 5 text"):
        mine = metric.compute(predictions=[p for p, _ in pairs],
                              references=[r for _, r in pairs], rouge_types=TYPES, lang="th",
                              use_aggregator=False, detailed=True)
    assert differences(mine, theirs, pairs) == []
    from multilingual_rouge import rouge_scorer

    with warnings.catch_warnings(record=True) as caught:  # the peer warns per text
        warnings.simplefilter("always")
        rouge_scorer.RougeScorer(["rouge1"], lang="thai").score("สวัสดี", "")
    assert [str(w.message) for w in caught] == \
        ["-----No tokens found using inferred tokenizer, switching to default tokenizer-----"]


@pytest.mark.slow
def test_threads_and_chunks(metric, xlsum, thai_words):
    """A batch large enough for threaded chunks (nltk's Arabic stemmer keeps state)."""
    pairs = language_pairs("ar", thai_words, n=2400, seed=2)
    mine = ours(metric, "ar", True, pairs)
    assert differences(mine, xlsum("arabic", True, pairs), pairs) == []


# --------------------------------------------------------------------------------------------
# Options, signature, warnings, errors

def test_lang_in_the_signature_and_no_stemmer_warning(metric):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = metric.compute(predictions=["ሰላም ዓለም", "ሰላም"], references=["ሰላም", "ዓለም"],
                             lang="am", use_stemmer=True, detailed=True)
    messages = [str(w.message) for w in caught if "has no stemmer" in str(w.message)]
    assert len(messages) == 1 and "'am' (amharic)" in messages[0]
    assert "|lang:am|" in out["signature"]
    assert "stem:none(no-stemmer:am)" in out["signature"]
    assert "tok:xlsum-am(onmt-aggressive" in out["signature"]
    signature = metric.compute(predictions=["नमस्ते"], references=["नमस्ते"], lang="hi",
                               use_stemmer=True, detailed=True)["signature"]
    assert "stem:hindi-xlsum" in signature


def test_segmenter_and_stemmer_versions_in_the_signature(metric):
    need("jieba")
    from importlib.metadata import version

    signature = metric.compute(predictions=["中文"], references=["中文"], lang="zh",
                               detailed=True)["signature"]
    assert f"jieba{version('jieba')}" in signature and "stem:no" in signature
    signature = metric.compute(predictions=["cats"], references=["cat"], lang="en",
                               use_stemmer=True, detailed=True)["signature"]
    assert "stem:snowball-english-nltk" in signature and "stopwords-nltk_data@4d5ecb6" in signature


def test_language_names():
    resolve = lang_module.resolve_language
    assert resolve("zh") is resolve("Chinese") is resolve("chinese_simplified") is \
        resolve("chinese-traditional") is resolve("ZH-Hans")
    assert resolve("bangla").code == "bn" and resolve("turkce").code == "tr"
    assert resolve("mundo").code == "es" and resolve("serbian_latin").code == "sr-latn"
    assert resolve("ar").rtl and resolve("ur").rtl and not resolve("hi").rtl
    with pytest.raises(ValueError, match=r"lang: got 'klingon'; allowed: None or one of am, "
                                         r"ar, .*zh"):
        resolve("klingon")
    with pytest.raises(TypeError, match="lang: got 3"):
        resolve(3)


def test_bad_combinations(metric):
    with pytest.raises(ValueError, match="lang: got 'zh' with profile='rouge155'"):
        metric.compute(predictions=["a"], references=["a"], lang="zh", profile="rouge155")
    with pytest.raises(ValueError, match="tokenizer: got 'unicode' with lang='en'"):
        metric.compute(predictions=["a"], references=["a"], lang="en", tokenizer="unicode")
    with pytest.raises(ValueError, match="lang: got 'xx'"):
        metric.compute(predictions=["a"], references=["a"], lang="xx")
    # tokenizer="default" (what the Space sends) is the language's tokenizer
    assert metric.compute(predictions=["a b"], references=["a b"], lang="en",
                          tokenizer="default")["rouge1"] == 1.0


def test_missing_package_names_the_pip_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "jieba", None)  # import jieba raises ImportError
    with pytest.raises(ImportError, match=r"lang='zh' \(chinese\) needs the package jieba: "
                                          r"pip install jieba"):
        lang_module.LanguageTokenizer(lang_module.resolve_language("zh"))
    monkeypatch.setitem(sys.modules, "pyonmttok", None)
    with pytest.raises(ImportError, match="pip install pyonmttok"):
        lang_module.LanguageTokenizer(lang_module.resolve_language("fr"))


def test_nothing_is_downloaded(monkeypatch):
    """The Snowball stemmers read the vendored lists, never nltk's corpus folder."""
    import nltk

    monkeypatch.setattr(nltk.data, "path", [])
    monkeypatch.setattr(nltk, "download", lambda *a, **k: pytest.fail("nltk.download called"))
    tokenizer = lang_module.LanguageTokenizer(lang_module.resolve_language("en"))
    assert tokenizer.tokens("Running through the houses", stemmer="x", stopwords=False) == \
        [["run", "through", "the", "hous"]]


def test_vendored_data_hashes():
    for language, (digest, text) in lang_data.STOPWORDS.items():
        assert hashlib.sha256(text.encode("utf-8")).hexdigest() == digest, language
    assert hashlib.sha256(lang_data.BENGALI_RULES.encode("utf-8")).hexdigest() == \
        lang_data.BENGALI_RULES_SHA256
    # every Snowball language multilingual-rouge stems has its list
    from nltk.stem.snowball import SnowballStemmer

    assert set(lang_data.STOPWORDS) == set(SnowballStemmer.languages) - {"porter"}


def test_bengali_rules_parse_as_the_peer_parses_them():
    need("multilingual_rouge")
    from multilingual_rouge.bengali_stemmer.parser import RafiStemmerRuleParser

    theirs = RafiStemmerRuleParser(lang_data.BENGALI_RULES)
    mine = lang_module.BengaliStemmer()
    assert mine.groups == theirs.groups and mine.replace == theirs.replace_rules


def test_everywhere(metric, evaluate_metric, tmp_path):
    """add_batch + compute, compare(), partial state round trip, the CLI."""
    preds = ["Москва — столица России.", "Красивые города."]
    refs = ["Столица России — Москва.", "Красивый город."]
    direct = metric.compute(predictions=preds, references=refs, lang="ru", use_stemmer=True,
                            use_aggregator=False)
    rouge = type(evaluate_metric)()
    rouge.add_batch(predictions=preds, references=refs)
    assert rouge.compute(lang="ru", use_stemmer=True, use_aggregator=False) == direct
    state = metric.partial(predictions=preds, references=refs, lang="ru", use_stemmer=True)
    again = metric.state_from_bytes(state.to_bytes())
    assert metric.finalize(again)["rouge1"] == metric.compute(
        predictions=preds, references=refs, lang="ru", use_stemmer=True)["rouge1"]
    out = metric.compare(predictions={"a": preds, "b": refs}, references=refs, lang="ru",
                         n_samples=100)
    assert "|lang:ru|" in out["signature"]
    (tmp_path / "p.txt").write_text("\n".join(preds) + "\n", encoding="utf-8")
    (tmp_path / "r.txt").write_text("\n".join(refs) + "\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "rouge_exact", str(tmp_path / "p.txt"),
                          str(tmp_path / "r.txt"), "--lang", "ru", "--use-stemmer", "--json"],
                         capture_output=True, text=True, env=os.environ.copy())
    assert run.returncode == 0, run.stderr
    assert "lang:ru" in run.stdout


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=30), st.text(st.characters(), max_size=30),
                          st.text(st.sampled_from("aZ .\n\t\r\x00\x85\u2028\u0130\u03a3"
                                                  "\u093e\ufffd\ud800\U0001F600\u3000"),
                                  max_size=30)),
                max_size=8))
def test_clean_texts_is_clean_text_of_each(texts):
    """The batch cleaner (numpy over code points) equals str.translate of each text: every
    Unicode category, lone surrogates, line ends, case changes that change the length; in
    one group and in groups of a few characters (a long text alone)."""
    expected = [lang_module.clean_text(t) for t in texts]
    assert lang_module.clean_texts(texts) == expected
    whole = lang_module._CLEAN_GROUP_CHARS
    try:
        lang_module._CLEAN_GROUP_CHARS = 7
        assert lang_module.clean_texts(texts) == expected
    finally:
        lang_module._CLEAN_GROUP_CHARS = whole


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from("abz09 \x00.-"), max_size=40))
def test_ascii_fast_path_is_the_pre_tokenizer(text):
    """ASCII words skip pyonmttok: after the punctuation rule only a-z and 0-9 are left, and
    OpenNMT's aggressive mode splits letters from digits."""
    pyonmttok = need("pyonmttok")
    clean = " ".join(lang_module.clean_words(text))
    expected = pyonmttok.Tokenizer("aggressive").tokenize(clean)[0] if clean else []
    tokenizer = lang_module.language_tokenizer("en")
    assert tokenizer._flat(lang_module.clean_text(text)) == (expected, False)


MARKS = "\u0301\u093e\u0947\u09c8\u0e49\u1058\u06d2\ufe0f\u20dd"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(st.sampled_from("aé中Я१ष😀½" + MARKS), min_size=1, max_size=6),
                min_size=1, max_size=6))
def test_words_pre_tokenized_one_by_one(words):
    """Pre-tokenizing each distinct word once (memo) gives the whole text's tokens, also for
    words that start with a combining mark (which OpenNMT joins to the space before)."""
    pyonmttok = need("pyonmttok")
    clean = " ".join(lang_module.clean_words(" ".join(words).lower()))
    expected = lang_module._split_cjk(pyonmttok.Tokenizer("aggressive").tokenize(clean)[0]) \
        if clean else []
    tokenizer = lang_module.language_tokenizer("ru")
    assert tokenizer._flat(lang_module.clean_text(" ".join(words))) == (expected, False)


def test_remove_stopwords_drops_smart_stopwords_before_stemming(metric):
    # prediction: dog barked hill (the, on, the dropped); reference: dog barked (a dropped)
    out = metric.compute(predictions=["The dog barked on the hill", "the a of"],
                         references=["A dog barked.", "x y"], lang="en", remove_stopwords=True,
                         rouge_types=["rouge1", "rougeLsum"], use_aggregator=False,
                         detailed=True)
    assert out["rouge1"]["precision"] == [2 / 3, 0.0]
    assert out["rouge1"]["recall"] == [1.0, 0.0]
    assert out["rougeLsum"]["fmeasure"][0] == out["rouge1"]["fmeasure"][0] == 0.8
    tokenizer = lang_module.language_tokenizer("en")
    assert tokenizer.tokens("The dogs barked\non the hills", stemmer="x", stopwords=True) == \
        [["dog", "bark"], ["hill"]]


# --------------------------------------------------------------------------------------------
# The highlights' tokens: those of the scores, across line ends

def _same_tokens(ids, strings):
    """Token ids and token strings name the same tokens: as many, and one string per id and
    one id per string."""
    pairs = set(zip(ids, strings))
    return len(ids) == len(strings) and len(pairs) == len(set(ids)) == len(set(strings))


def test_tokens_by_line_hand_written_zh():
    """jieba segments the whole text, its line end read as a space, and keeps that space
    as a token (as multilingual-rouge does): tokens gives it, with the line it ends."""
    need("jieba")
    tokenizer = lang_module.language_tokenizer("zh")
    assert tokenizer.tokens("我爱北京天安门\n天安门上太阳升", stemmer=None, stopwords=False) == \
        [["我", "爱", "北京", "天安门", " "], ["天安门", "上", "太阳升"]]
    assert tokenizer.tokens("研究生命。\n\n起源\n", stemmer=None, stopwords=False) == \
        [["研究", "生命", " "], [], ["起源"], []]


def test_tokens_by_line_after_a_pre_tokenizer_escape():
    """The pre-tokenizer keeps a space that a combining mark follows in the mark's token,
    written ％0020 ("x ाक" gives x, ％0020ा, क): the token goes to the line of the mark, and
    the tokens after it to theirs (they all stayed on the first line)."""
    need("pyonmttok")
    hi = lang_module.language_tokenizer("hi")
    assert hi.tokens("\u093e\u0915 x\n\u093e\u0915", stemmer=False, stopwords=False) == \
        [["\u093e", "\u0915", "x"], ["％0020\u093e", "\u0915"]]
    # ▁ ￭ ￨ come out as _ ■ │; a mark after punctuation or after a blank line
    assert hi.tokens("x ￭ ▁\n￨ \u0915.\u093f\u0916\n\n\u0947", stemmer=False,
                     stopwords=False) == \
        [["x", "■", "_"], ["│", "\u0915", "％0020\u093f", "\u0916"], [], ["％0020\u0947"]]
    # two such tokens in a row, across a line end (a search that did not read them lost its
    # place twice: the second went to the first one's line)
    assert hi.tokens("x \u093e\n\u093f", stemmer=False, stopwords=False) == \
        [["x", "％0020\u093e"], ["％0020\u093f"]]
    assert hi.tokens("x ￭\n￭ y", stemmer=False, stopwords=False) == [["x", "■"], ["■", "y"]]
    ar = lang_module.language_tokenizer("ar")
    text = "قال \u064eالطالب: ٣ كتب\n\u064fجديدة، ▁ و\n\n\u0650 نعم"
    assert ar.tokens(text, stemmer=False, stopwords=False) == [
        ["قال", "％0020\u064e", "الطالب", "٣", "كتب"],
        ["％0020\u064f", "جديدة", "_", "و"],
        [],
        ["％0020\u0650", "نعم"],
    ]


def test_tokens_by_line_burmese_across_a_line_end():
    """The Burmese rules join a dependent sign to the unit before it across whitespace, and
    swap dot below and asat: the token goes to the line it starts on, the next to its own."""
    need("pyonmttok")
    my = lang_module.language_tokenizer("my")
    assert my.tokens("\u1000\u102c\n\u102c\u1000", stemmer=False, stopwords=False) == \
        [["\u1000\u102c\u102c"], ["\u1000"]]
    assert my.tokens("\u1000\u1037\u103a\n\u1000", stemmer=False, stopwords=False) == \
        [["\u1000\u103a\u1037"], ["\u1000"]]


def test_token_lines_move_on_after_a_token_not_found():
    """A token not in the text goes to the line of the text's next character after the token
    before it, and the search moves on: the tokens after it are on their own lines."""
    cleaned = "क ख\nग ख\n\nघ"  # lines 0, 1, 3
    assert lang_module.token_lines(["क", "ख", "ग", "ख", "घ"], cleaned) == [0, 0, 1, 1, 3]
    # a token replaced by one not in the text (ह, zz) or only further on (घ, on line 3)
    assert lang_module.token_lines(["क", "ह", "ग", "ख", "घ"], cleaned) == [0, 0, 1, 1, 3]
    assert lang_module.token_lines(["क", "ख", "घ", "ख", "घ"], cleaned) == [0, 0, 1, 1, 3]
    assert lang_module.token_lines(["क", "ख", "zz", "zz", "घ"], cleaned) == [0, 0, 1, 1, 3]
    assert lang_module.token_lines(["zz", "ख", "ग", "ख", "zz"], cleaned) == [0, 0, 1, 1, 3]
    # Burmese: a token's characters may lie apart by spaces, also after a token not found
    assert lang_module.token_lines(["zz", "\u1000\u102c"], "\u1001\n\u1000\n\u102c",
                                   swap_burmese=True) == [0, 1]
    # the pre-tokenizer writes ▁ as _, a segmenter keeps it: both are found
    assert lang_module.token_lines(["_", "_", "_"], "▁\n▁ ▁") == [0, 1, 1]
    assert lang_module.token_lines(["▁", "▁", "▁"], "▁\n▁ ▁") == [0, 1, 1]


def _interned(tokens, ids=None):
    """Token strings as batch numbers them: each distinct one in order of first appearance."""
    ids = {} if ids is None else ids
    return [ids.setdefault(token, len(ids)) for token in tokens]


def _marked_text(rng, code):
    """A multi-line text of a script with combining marks: marks right after spaces, line
    starts and punctuation, the pre-tokenizer's reserved characters, digits, noise."""
    signs = SCRIPTS[code][1]
    pieces = []
    for _ in range(rng.randint(1, 14)):
        roll = rng.random()
        if roll < 0.25:
            piece = "".join(rng.choice(signs) for _ in range(rng.randint(1, 2))) + \
                _word(rng, code, None) * (rng.random() < 0.7)
        elif roll < 0.35:
            piece = rng.choice(DIGITS) + rng.choice(["", rng.choice(signs)])
        elif roll < 0.45:
            piece = rng.choice(PUNCTUATION) + rng.choice(["", rng.choice(signs)])
        elif roll < 0.52:
            piece = rng.choice("\u2581\uffed\uffe8") + rng.choice(["", rng.choice(signs)])
        elif roll < 0.55:
            piece = rng.choice(NOISE) + rng.choice(signs)
        else:
            piece = _word(rng, code, None)
        pieces.append(piece)
        pieces.append(rng.choice([" ", " ", " ", "\n", "\n", "\n\n", "", "\r\n", "\t",
                                  "\u2028", " \n ", "\u00a0"]))
    return rng.choice(["", "", "\n", " "]) + "".join(pieces)


def _lines_by_hand(text, tokens):
    """The line of each token (unstemmed, no stopwords dropped): that of its first character
    that is not a space. The pre-tokenizer writes a space it keeps as ％0020 and ▁ ￭ ￨ as
    _ ■ │, and leaves every other character of the clean text as it is, in order: the
    tokens' characters, spaces left out, are the clean text's, whitespace left out."""
    cleaned = lang_module.clean_text(text)
    chars = [(char, number) for number, line in enumerate(cleaned.split("\n"))
             for char in line if not char.isspace()]
    written = {"\u2581": "_", "\uffed": "\u25a0", "\uffe8": "\u2502"}
    lines, k = [], 0
    for token in tokens:
        visible = token.replace("％0020", " ").replace(" ", "")
        assert visible, (text, token)
        lines.append(chars[k][1])
        for char in visible:
            assert written.get(chars[k][0], chars[k][0]) == char, (text, tokens, k)
            k += 1
    assert k == len(chars), (text, tokens)
    return lines


@pytest.mark.parametrize("code", ["hi", "ar", "bn"])
@pytest.mark.slow
def test_tokens_by_line_generated_marked_texts(code):
    """On generated multi-line texts: tokens, flattened, are batch's tokens of the same
    text, exactly (alone, and in a batch of all of them), and each token (unstemmed) is on
    the line of its first character that is not a space (_lines_by_hand)."""
    need("pyonmttok")
    tokenizer = lang_module.language_tokenizer(code)
    rng = random.Random(f"marked-{code}")
    texts = [_marked_text(rng, code) for _ in range(400)]
    escapes = 0
    for stemmer, stopwords in ((False, False), ("x", True)):
        every, ids = [], {}
        for text in texts:
            lines = tokenizer.tokens(text, stemmer=stemmer, stopwords=stopwords)
            assert len(lines) == len(text.split("\n")), text
            flat = [token for line in lines for token in line]
            alone = tokenizer.batch([text], stemmer=stemmer, stopwords=stopwords)
            assert alone.tokens.tolist() == _interned(flat), (text, flat)
            every.append(_interned(flat, ids))
            if not stemmer:
                by_hand = _lines_by_hand(text, flat)
                assert [n for n, line in enumerate(lines) for _ in line] == by_hand, \
                    (text, lines)
                escapes += sum("％0020" in token and n > 0 for token, n in zip(flat, by_hand))
        together = tokenizer.batch(texts, stemmer=stemmer, stopwords=stopwords)
        offsets = together.sent_offsets.tolist()
        assert [together.tokens[offsets[k]:offsets[k + 1]].tolist()
                for k in range(len(texts))] == every
    assert escapes > 50  # the texts did put escaped tokens on lines after the first


NEWLINE_TEXTS = {
    "zh": ["我爱北京天安门\n天安门上太阳升", "我们 在\n\n北京大学读书。\n", "GDP增长3.5%\n经济\r\n发展",
           "\n研究生命\n起源\n"],
    "ja": ["東京に行きました\n今日は天気がいい", "すもももももも\nもものうち。\n\nABC 123",
           "\n外国人参政権\n"],
    "th": ["ผมรักภาษาไทย\nวันนี้อากาศดี", "สวัสดี ครับ\n\nประเทศไทย 2567\n", "\nกินข้าว\nไหม"],
}


@pytest.mark.parametrize("code", sorted(NEWLINE_TEXTS))
@pytest.mark.slow
def test_tokens_are_the_scores_tokens_across_newlines(xlsum, thai_words, code):
    """tokens (the Space's highlights), flattened, are batch's tokens (what every score comes
    from), split at the text's line ends; so pair_marks lines them up (it raised "the
    tokenizer's views of the texts differ" for a text with a newline) and its marks count
    multilingual-rouge's hits."""
    # the Space's names: the checked options and scorer.display's pair_marks
    build, pair_marks = staged("options").RougeOptions.build, staged("scorer.display").pair_marks
    need({"zh": "jieba", "ja": "fugashi", "th": "pythainlp"}[code])
    tokenizer = lang_module.language_tokenizer(code)
    texts = NEWLINE_TEXTS[code]
    generated = [t for pair in language_pairs(code, thai_words, n=120, seed=1) for t in pair]
    for text in texts + generated:
        for stemmer, stopwords in ((None, False), ("x", True)):
            lines = tokenizer.tokens(text, stemmer=stemmer, stopwords=stopwords)
            assert len(lines) == len(text.split("\n")), text
            flat = [token for line in lines for token in line]
            ids = tokenizer.batch([text], stemmer=stemmer, stopwords=stopwords).tokens.tolist()
            assert _same_tokens(ids, flat), (text, ids, flat)
    opts = build(rouge_types=["rouge1", "rouge2", "rougeL"], lang=code)
    # the hand-written texts paired in turn (they share few words), and generated pairs that
    # share many, across line ends
    pairs = list(zip(texts, texts[1:] + texts[:1])) + \
        list(language_pairs(code, thai_words, n=120, seed=1))[-30:]
    name = lang_module.resolve_language(code).name
    all_scores = xlsum(name, False, pairs, ["rouge1", "rougeL"])
    hits = 0
    for (prediction, reference), scores in zip(pairs, all_scores):
        for rouge_type in opts.rouge_types:
            marks_p, marks_r, words_p, words_r = pair_marks(opts, prediction, reference,
                                                            rouge_type)
            if rouge_type.name in scores:  # hits = recall x reference length, by theirs
                score = scores[rouge_type.name]
                assert int(marks_r.sum()) == round(score.recall * len(words_r))
                assert int(marks_p.sum()) == round(score.precision * len(words_p))
                hits += int(marks_r.sum())
    assert hits > 100  # the check above compared real matches, not zeros
