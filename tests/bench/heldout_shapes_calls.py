"""Chat calls held out from the recognition rules of commit ab3c5ad (languages, tool results, labels on the
instruction line, the Vercel AI SDK, judge prompts): written after those rules were frozen, and never used to
change them.

    python tests/bench/recognition_shapes.py

Same rule as heldout_chat_calls.py: a miss or a false recognition found here is reported, and a fix is checked on
calls written after the fix. ``document`` is what the judge should read, None for a call that is not a
summarization; ``tool`` is a tool's answer that follows the user's turn (the agent pattern).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HeldoutCall:
    group: str
    users: tuple[str, ...]
    answer: str
    document: str | None
    system: str = ""
    tool: str = ""


EN = ("The regional water board said on Monday that reservoir levels stand at 41 percent, the lowest for October "
      "since 2011. Hosepipe restrictions stay in place, and a new pipeline from the northern lakes is due to open "
      "next spring at a cost of 120 million pounds.")
EN2 = ("Orbita Labs released version 5 of its mapping app with offline routes for cyclists, a redesigned search "
       "bar and support for 14 new countries. The update removes the old trip planner, which fewer than two "
       "percent of users opened last year.")
FR = ("Le festival de jazz de Vienne a accueilli cette année 210 000 spectateurs, un record. Les organisateurs "
      "annoncent une édition 2026 prolongée d'une semaine et la création d'une scène gratuite sur les quais du "
      "Rhône.")
FR2 = ("La société Bretagne Câbles va supprimer 80 postes dans son usine de Lannion d'ici juin. La direction "
       "invoque la baisse des commandes, tandis que les syndicats réclament un plan de reclassement et une "
       "réunion avec la préfecture.")
DE = ("Der Verkehrsverbund Rhein-Ruhr führt ab Januar ein Jugendticket für 29 Euro im Monat ein. Es gilt für alle "
      "Schüler und Auszubildenden bis 21 Jahre und ersetzt die bisherigen Schulmonatskarten der einzelnen Städte.")
DE2 = ("Die Firma Nordlicht Software hat im dritten Quartal einen Umsatz von 14 Millionen Euro erzielt, ein Plus "
       "von zwölf Prozent. Wegen hoher Personalkosten sank der Gewinn jedoch leicht, und der Vorstand senkte die "
       "Jahresprognose.")
ES = ("La biblioteca municipal de Zaragoza abrirá las 24 horas durante la época de exámenes, del 10 de enero al "
      "15 de febrero. El servicio contará con vigilancia nocturna y se ampliará la red wifi en todas las salas.")
ES2 = ("La empresa Solaris Andina instalará un parque solar de 200 megavatios en el desierto de Atacama. La obra "
       "empezará en marzo, creará unos 600 empleos temporales y abastecerá a 150.000 hogares cuando esté lista.")
PT = ("O metrô de Lisboa vai prolongar a linha vermelha até Alcântara até 2027. A obra custará 400 milhões de "
      "euros, terá quatro novas estações e deverá reduzir em vinte minutos o tempo de viagem para quem vem de "
      "Loures.")
PT2 = ("A cooperativa Café Serra Verde exportou 30 mil sacas para o Japão neste ano, o dobro de 2024. Os "
       "produtores atribuem o resultado à certificação orgânica e planejam abrir um escritório em Tóquio.")

A = "A short summary of the text."

_EN_POS = (f"Summarise the following announcement in one line: {EN}",
           f"{EN2}\n\nCan you condense this into a tweet-length summary?",
           f"Give me a three-bullet summary of this press release:\n\n{EN2}",
           f"Please boil this down to the essentials.\n---\n{EN}\n---",
           f"<news>{EN}</news>\nWrite a two-sentence summary of the news above.",
           f"What are the key points here?\n\n{EN2}",
           f"Quick recap please:\n{EN}", f"I'd like a brief overview of this update:\n\n{EN2}",
           f"Provide an executive summary of the text below.\n\nText: {EN}", f"{EN}\n\nTLDR?",
           f"Summarize in two sentences for our newsletter. ```{EN2}```", f"Could you sum up this article for me? {EN}",
           f"Here's a product update. Write a one-sentence summary of it:\n{EN2}",
           f"Read this and summarize the main points:\n\n{EN}", f"Make a short summary of the following notes: {EN2}")
_EN_NEG = (f"Translate this announcement into Italian: {EN}", f"Which countries were added? {EN2}",
           f"Write three tweets promoting this release: {EN2}", f"Extract the percentages from this text: {EN}",
           f"Is this text written in a formal tone? {EN}", "Summarize the history of the Roman Empire.",
           f"Rewrite this announcement for a children's magazine: {EN}", "What's a good way to summarize a long book?",
           f"Classify this article into one of: politics, tech, weather. {EN2}", "Give me a summary of your abilities.",
           f"Suggest a headline for this story: {EN}", f"Answer in one word: is the pipeline finished? {EN}",
           f"Convert this paragraph to a bulleted FAQ: {EN2}", "Write a haiku about water shortages.",
           f"Check this text for spelling mistakes: {EN2}")
_FR_POS = (f"Résume cet article en une phrase : {FR}", f"Fais-moi un résumé rapide de ce texte :\n\n{FR2}",
           f"{FR}\n\nPeux-tu résumer ce qui précède en deux phrases ?",
           f"Donne les points clés de cette dépêche :\n{FR2}",
           f"Résumez le communiqué suivant pour la direction.\n---\n{FR}\n---",
           f"Synthétise ce texte en trois points : {FR2}",
           f"Rédige un court résumé de cet article.\n\nArticle : {FR}",
           f"Je voudrais un résumé de cette nouvelle :\n{FR2}",
           f"<texte>{FR}</texte>\nRésume le texte ci-dessus.", f"En deux phrases, résume cette actualité : {FR2}",
           f"Pourrais-tu résumer ce texte pour un lecteur pressé ?\n\n{FR}",
           f"Écris une synthèse de l'article suivant : {FR2}",
           f"Quelles sont les idées principales de ce texte ?\n\n{FR}", f"Merci de résumer ce communiqué : {FR2}",
           f"Voici un article. Fais-en un résumé en une ligne :\n{FR}")
_FR_NEG = (f"Traduis ce texte en espagnol : {FR}", f"Combien de postes seront supprimés ? {FR2}",
           f"Corrige les fautes de ce texte : {FR}", f"Écris un poème sur ce festival : {FR}",
           f"Trouve un titre accrocheur pour cet article : {FR2}", "Résume l'histoire de la Révolution française.",
           f"Quel est le ton de ce texte : positif ou négatif ? {FR2}",
           f"Reformule ce paragraphe de façon plus formelle : {FR}",
           "Comment faire un bon résumé d'un livre ?", f"Extrais les chiffres de ce texte : {FR}",
           f"Rédige une lettre de protestation à partir de cet article : {FR2}",
           "Bonjour, comment vas-tu aujourd'hui ?",
           f"Classe cet article dans une rubrique : culture, économie ou sport. {FR}",
           f"Réponds à la question : où est l'usine ? {FR2}",
           f"Transforme ce texte en questions de quiz : {FR}")
_DE_POS = (f"Fasse diesen Artikel in einem Satz zusammen: {DE}",
           f"Bitte fasse den folgenden Text kurz zusammen.\n\n{DE2}",
           f"{DE}\n\nKannst du das in zwei Sätzen zusammenfassen?",
           f"Was sind die wichtigsten Punkte dieser Meldung?\n\n{DE2}",
           f"Schreib eine kurze Zusammenfassung des folgenden Berichts:\n---\n{DE2}\n---",
           f"Gib mir die Kernaussagen dieses Textes: {DE}",
           f"Erstelle eine Zusammenfassung in drei Stichpunkten.\n\nText: {DE2}",
           f"Ich brauche eine kurze Zusammenfassung davon:\n{DE}",
           f"<artikel>{DE}</artikel>\nFasse den Artikel oben zusammen.",
           f"Fassen Sie die folgende Pressemitteilung zusammen: {DE2}",
           f"Könntest du mir diesen Text zusammenfassen?\n\n{DE}",
           f"In zwei Sätzen: worum geht es in diesem Bericht?\n\n{DE2}",
           f"Hier ist eine Meldung. Fasse sie für den Newsletter zusammen:\n{DE}", f"Zusammenfassung bitte: {DE2}",
           f"Den folgenden Text bitte in drei Sätzen zusammenfassen: {DE}")
_DE_NEG = (f"Übersetze diesen Text ins Französische: {DE}", f"Wie viel kostet das Ticket? {DE}",
           f"Korrigiere die Rechtschreibung in diesem Text: {DE2}", f"Schreibe ein Gedicht über diese Meldung: {DE}",
           f"Finde eine passende Überschrift für diesen Artikel: {DE2}",
           "Fasse die Geschichte des Mittelalters zusammen.",
           f"Ist der Ton dieses Textes positiv oder negativ? {DE2}", f"Formuliere diesen Absatz höflicher um: {DE}",
           "Wie schreibt man eine gute Zusammenfassung?", f"Extrahiere alle Zahlen aus diesem Text: {DE2}",
           f"Schreibe eine Beschwerde an den Verkehrsverbund auf Grundlage dieser Meldung: {DE}",
           "Hallo, wie geht es dir?",
           f"Ordne diesen Text einer Kategorie zu: Wirtschaft, Sport oder Politik. {DE2}",
           f"Beantworte die Frage: für wen gilt das Ticket? {DE}",
           f"Erstelle drei Quizfragen zu diesem Text: {DE2}")
_ES_POS = (f"Resume esta noticia en una frase: {ES}", f"Hazme un resumen breve del siguiente texto:\n\n{ES2}",
           f"{ES}\n\n¿Podrías resumir lo anterior en dos frases?",
           f"¿Cuáles son los puntos clave de esta noticia?\n\n{ES2}",
           f"Resume el comunicado siguiente para el equipo.\n---\n{ES}\n---",
           f"Sintetiza este texto en tres puntos: {ES2}",
           f"Escribe un resumen corto del artículo.\n\nArtículo: {ES}", f"Necesito un resumen de esta noticia:\n{ES2}",
           f"<texto>{ES}</texto>\nResume el texto de arriba.", f"En dos frases, resume esta noticia: {ES2}",
           f"¿Puedes resumir este texto para alguien con prisa?\n\n{ES}",
           f"Dame las ideas principales del siguiente texto: {ES2}",
           f"Aquí tienes una noticia. Resúmela en una línea:\n{ES}", f"Por favor, resume este comunicado: {ES2}",
           f"Redacta un resumen ejecutivo de este texto: {ES}")
_ES_NEG = (f"Traduce este texto al francés: {ES}", f"¿Cuántos empleos creará la obra? {ES2}",
           f"Corrige los errores de este texto: {ES}", f"Escribe un poema sobre esta noticia: {ES}",
           f"Propón un título llamativo para este artículo: {ES2}", "Resume la historia de la Guerra Civil española.",
           f"¿El tono de este texto es positivo o negativo? {ES2}",
           f"Reescribe este párrafo con un tono más formal: {ES}",
           "¿Cómo se escribe un buen resumen?", f"Extrae las fechas de este texto: {ES}",
           f"Escribe una queja formal basada en esta noticia: {ES2}", "Hola, ¿qué tal estás hoy?",
           f"Clasifica este texto en una categoría: economía, cultura o deportes. {ES}",
           f"Responde la pregunta: ¿dónde estará el parque? {ES2}",
           f"Crea tres preguntas de examen sobre este texto: {ES}")
_PT_POS = (f"Resuma esta notícia em uma frase: {PT}", f"Faça um resumo curto do texto a seguir:\n\n{PT2}",
           f"{PT}\n\nVocê poderia resumir o texto acima em duas frases?",
           f"Quais são os pontos principais desta notícia?\n\n{PT2}",
           f"Resuma o comunicado abaixo para a equipe.\n---\n{PT}\n---", f"Sintetize este texto em três tópicos: {PT2}",
           f"Escreva um resumo breve do artigo.\n\nArtigo: {PT}", f"Preciso de um resumo desta notícia:\n{PT2}",
           f"<texto>{PT}</texto>\nResuma o texto acima.", f"Em duas frases, resuma esta notícia: {PT2}",
           f"Pode resumir este texto para quem tem pouco tempo?\n\n{PT}",
           f"Me dê as ideias principais do seguinte texto: {PT2}",
           f"Aqui está uma notícia. Resuma em uma linha:\n{PT}", f"Por favor, resuma este comunicado: {PT2}",
           f"Redija um resumo executivo deste texto: {PT}")
_PT_NEG = (f"Traduza este texto para o inglês: {PT}", f"Quantas estações novas terá a linha? {PT}",
           f"Corrija os erros deste texto: {PT2}", f"Escreva um poema sobre esta notícia: {PT}",
           f"Sugira um título chamativo para este artigo: {PT2}", "Resuma a história do Brasil colonial.",
           f"O tom deste texto é positivo ou negativo? {PT2}", f"Reescreva este parágrafo de forma mais formal: {PT}",
           "Como escrever um bom resumo?", f"Extraia os números deste texto: {PT2}",
           f"Escreva uma reclamação formal com base nesta notícia: {PT}", "Olá, tudo bem com você?",
           f"Classifique este texto em uma categoria: economia, cultura ou esportes. {PT2}",
           f"Responda à pergunta: para onde vai a linha? {PT}",
           f"Crie três perguntas de prova sobre este texto: {PT2}")

_DOCS = {"en": (EN, EN2), "fr": (FR, FR2), "de": (DE, DE2), "es": (ES, ES2), "pt": (PT, PT2)}


def _language(group: str, positives: tuple[str, ...], negatives: tuple[str, ...]) -> list[HeldoutCall]:
    docs = _DOCS[group]
    out = [HeldoutCall(group, (u,), A, next(d for d in docs if d in u)) for u in positives]
    return out + [HeldoutCall(group, (u,), "Some answer.", None) for u in negatives]


_TOOL_POS = ("Summarize it.", "summarize this", "Fetch the article and give me a two-line summary.",
             "Look up the release notes and summarise them for me.", "Résume ce document.", "Fasse das bitte zusammen.",
             "Resume este documento.", "Resuma isso.", "Can you read the page and sum it up?",
             "Get the latest press release and write a short summary.", "tl;dr of that page please",
             "Open the file and give me the key points.", "Read the link and summarize in 3 bullets.",
             "Download the report and condense it into one paragraph.", "What does it say? Give me a quick recap.")
_TOOL_NEG = ("What's the weather in Leeds?", "Translate the page into German.", "How many countries were added?",
             "Extract all the numbers from the page.", "Is the pipeline finished yet?",
             "Traduis ce document en anglais.",
             "Wie viel kostet das Ticket?", "¿Cuántos empleos habrá?", "Quantas estações novas?",
             "Write a reply to the sender.", "Classify the page as news or opinion.",
             "Find the author's email address.",
             "Check whether the page mentions Leeds.", "Turn the page into a quiz.", "List every date mentioned.")
_TOOL_DOCS = (EN, EN2, FR, DE, ES, PT)

_HEADERS = ("From: dana@orbita.example", "Subject: Reservoir levels", "Title: Jazz festival record",
            "Date: 4 October", "Betreff: Jugendticket", "Asunto: Biblioteca 24 horas", "Assunto: Metrô de Lisboa",
            "Objet : Suppression de postes", "To: all-staff@orbita.example", "Sender: press office")
_LABEL_POS = ("Summarize this email. {h}\n\n{d}", "Please summarise the message below. {h}\n{d}",
              "Give me a one-line summary of this email. {h}\n\n{d}", "TL;DR this for me. {h}\n{d}",
              "Résume ce courriel. {h}\n\n{d}", "Fasse diese E-Mail zusammen. {h}\n\n{d}",
              "Resume este correo. {h}\n\n{d}", "Resuma este e-mail. {h}\n\n{d}",
              "Summarize the forwarded note. {h}\n\n{d}", "Write a short summary of this message. {h}\n\n{d}",
              "Sum up this email in two sentences. {h}\n{d}", "Key points of this email, please. {h}\n\n{d}",
              "Condense this newsletter. {h}\n\n{d}", "Summarize the memo. {h}\n\n{d}",
              "Can you summarize this email? {h}\n\n{d}")
_LABEL_NEG = ("Reply to this email politely. {h}\n\n{d}", "Translate this email into French. {h}\n\n{d}",
              "Is this email spam? {h}\n\n{d}", "Draft a follow-up to this message. {h}\n{d}",
              "Traduis ce courriel en anglais. {h}\n\n{d}", "Beantworte diese E-Mail. {h}\n\n{d}",
              "Responde a este correo. {h}\n\n{d}", "Responda a este e-mail. {h}\n\n{d}",
              "Classify this email by department. {h}\n\n{d}", "Extract the sender and date. {h}\n\n{d}",
              "Fix the typos in this email. {h}\n\n{d}", "Rewrite this message more formally. {h}\n\n{d}",
              "Who should handle this email? {h}\n\n{d}", "Write a subject line for this email. {h}\n\n{d}",
              "Forward-ready version of this email, please, in Spanish. {h}\n\n{d}")

_VERCEL_POS = (*_EN_POS[:5], *_FR_POS[:3], *_DE_POS[:3], *_ES_POS[:2], *_PT_POS[:2])
_VERCEL_NEG = (*_EN_NEG[:5], *_FR_NEG[:3], *_DE_NEG[:3], *_ES_NEG[:2], *_PT_NEG[:2])

_JUDGE_NEG = (f"Here is the summary our model produced: 'Reservoirs are full.' Is it faithful to the source? {EN}",
              f"{EN2}\n\nSummary I wrote: Orbita added 14 countries. Is this accurate?",
              f"Please check my summary against the article. My summary: levels are at 41 percent.\nArticle: {EN}",
              f"Grade this summary from 1 to 5 for accuracy. Summary: the app is new. Source: {EN2}",
              f"Does the following summary miss anything important? Summary: a pipeline opens. Text: {EN}",
              f"Compare this summary with the article and list errors. Summary: the trip planner stays. {EN2}",
              f"Voici mon résumé : le festival a eu du succès. Est-il fidèle au texte ? {FR}",
              f"Ce résumé est-il correct ? « 80 postes supprimés. » Texte : {FR2}",
              f"Hier ist meine Zusammenfassung: Das Ticket kostet 29 Euro. Stimmt das mit dem Text überein? {DE}",
              f"Prüfe diese Zusammenfassung auf Fehler: Der Gewinn stieg. Text: {DE2}",
              f"Aquí está mi resumen: la biblioteca abre de noche. ¿Es fiel al texto? {ES}",
              f"¿Este resumen es correcto? Resumen: 600 empleos fijos. Texto: {ES2}",
              f"Aqui está o meu resumo: a linha vai até Alcântara. Está correto? {PT}",
              f"Avalie este resumo de 1 a 5: exportações dobraram. Texto: {PT2}",
              f"Here's a summary a colleague wrote: 'Hosepipe bans end.' Is it right? {EN}")
_JUDGE_POS = (f"Write an accurate summary of this article: {EN}",
              f"Summarize this faithfully, without adding facts: {EN2}",
              f"Summarize the text below and make sure every number is correct.\n\n{EN}",
              f"Write a summary that a fact-checker would approve:\n{EN2}",
              f"Résume ce texte fidèlement : {FR}", f"Fasse den Text korrekt zusammen: {DE}",
              f"Resume el texto con precisión: {ES}", f"Resuma o texto com precisão: {PT}",
              f"Give me a careful, accurate two-sentence summary.\n\n{EN}",
              f"Summarize; accuracy matters more than style:\n{EN2}", f"Condense this, keeping the figures exact: {EN}",
              f"Summarize this article, then I will compare it with mine.\n\n{EN2}",
              f"Please write a correct and complete summary of the following: {EN}",
              f"TL;DR, and do not hallucinate: {EN2}", f"Sum up the key facts precisely: {EN}")


def _docs_in(text: str) -> str | None:
    return next((d for docs in _DOCS.values() for d in docs if d in text), None)


CALLS: tuple[HeldoutCall, ...] = (
    *_language("en", _EN_POS, _EN_NEG), *_language("fr", _FR_POS, _FR_NEG), *_language("de", _DE_POS, _DE_NEG),
    *_language("es", _ES_POS, _ES_NEG), *_language("pt", _PT_POS, _PT_NEG),
    *(HeldoutCall("tool-result", (u,), A, _TOOL_DOCS[i % 6], tool=_TOOL_DOCS[i % 6]) for i, u in enumerate(_TOOL_POS)),
    *(HeldoutCall("tool-result", (u,), "Some answer.", None, tool=_TOOL_DOCS[i % 6]) for i, u in enumerate(_TOOL_NEG)),
    *(HeldoutCall("labelled-instruction", (t.format(h=_HEADERS[i % 10], d=_TOOL_DOCS[i % 6]),), A,
                  f"{_HEADERS[i % 10]}\n{_TOOL_DOCS[i % 6]}" if "{h}\n{d}" in t else
                  f"{_HEADERS[i % 10]}\n\n{_TOOL_DOCS[i % 6]}") for i, t in enumerate(_LABEL_POS)),
    *(HeldoutCall("labelled-instruction", (t.format(h=_HEADERS[i % 10], d=_TOOL_DOCS[i % 6]),), "Some answer.", None)
      for i, t in enumerate(_LABEL_NEG)),
    *(HeldoutCall("vercel-ai", (u,), A, _docs_in(u)) for u in _VERCEL_POS),
    *(HeldoutCall("vercel-ai", (u,), "Some answer.", None) for u in _VERCEL_NEG),
    *(HeldoutCall("judge-prompt", (u,), "Mostly, but it leaves out the cost.", None) for u in _JUDGE_NEG),
    *(HeldoutCall("judge-prompt", (u,), A, _docs_in(u)) for u in _JUDGE_POS),
)
