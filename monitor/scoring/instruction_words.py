"""The words :mod:`.instruction` reads an instruction by, in English, French, German, Spanish and Portuguese.

    VERB.search("Fasse den folgenden Artikel zusammen:")        # a verb alone asks for a summary
    NOUN.search("Dame los puntos clave") and not OTHER_TASK.search(...)   # a noun asks unless another task is named

One pattern per role, each an alternation of the languages, so a rule in :mod:`.instruction` reads the same for
every language. "resume" is English for "carry on" and Spanish for "summarize": it counts only before a Spanish,
French or Portuguese word ("Resume el texto", "resume ce texte").
"""

from __future__ import annotations

import re

_ROMANCE_NEXT = (r"(?:el|la|los|las|este|esta|esto|estos|estas|lo|le|les|ce|cette|ces|cet|o|os|as|esse|essa|isso"
                 r"|isto|brevemente|bri[èe]vement|en|em|un|una|um|uma|une|mi|mon|ma|mes|meu|minha|del|do|da|de|du"
                 r"|des|rapidamente|r[áa]pidamente|siguiente|seguinte|suivant|aquí|aqui|ci-dessous|abajo)")

VERB = re.compile(
    r"\b(summari[sz]e|tl;?dr|condense|sum (?:it |this |that |these |them )?up|recap|boil (?:it |this )?down"
    # French, Spanish, Portuguese
    r"|r[ée]sum(?:ez|er|ons|ir|ira|iria|irlo|irla|irme|a|am|ame|alo|ala|elo|ela|ime|e-moi|e-le|e-la)"
    r"|résume|resúm\w+|resume(?=\s+" + _ROMANCE_NEXT + r"\b)"
    r"|synth[ée]tis(?:e|ez|er)|sintetiz(?:a|e|ar|ame|alo|ala)"
    # German: the separable verb ("Fasse den Artikel zusammen") and its infinitive and participle
    r"|zusammenfassen|zusammengefasst|fass(?:e|en|t)?\s+(?:[^.?!:\n]{0,120}?\s)?zusammen)\b", re.I)

_COUNT = (r"(?:\d+|one|two|three|four|five|six|seven|a few|a single|a couple of|une|deux|trois|quatre|cinq"
          r"|quelques|einem|einen|zwei|drei|vier|f[üu]nf|wenigen|una|dos|tres|cuatro|cinco|pocas|uma|duas"
          r"|tr[êe]s|quatro|poucas)")
NOUN = re.compile(
    r"\b(summary|summaries|summari[sz](?:ation|ed|ing)|synopsis|abstract|key (?:points|takeaways|findings|facts)"
    r"|main (?:points|ideas|takeaways)|(?:brief|short|quick|high-level) overview|gist|highlights"
    r"|in " + _COUNT + r" (?:short |brief |concise )?(?:sentences?|bullets?|bullet points?|lines?|paragraphs?)"
    # French
    r"|r[ée]sum[ée]s?|synth[èe]ses?|points? cl[ée]s?|id[ée]es? (?:principales|cl[ée]s)|grandes lignes"
    r"|l'essentiel|en bref|bref aper[çc]u"
    r"|en " + _COUNT + r" (?:courtes? |br[èe]ves? )?(?:phrases?|points?|lignes?|paragraphes?)"
    # German
    r"|zusammenfassung\w*|kernaussagen?|kernpunkte|das wichtigste|die wichtigsten (?:punkte|aussagen|fakten|inhalte)"
    r"|stichpunkt\w*|[üu]berblick"
    r"|in " + _COUNT + r" (?:kurzen )?(?:s[äa]tzen|satz|stichpunkten|punkten|zeilen|abs[äa]tzen|absatz)"
    # Spanish and Portuguese
    r"|resumen(?:es)?|resumos?|s[íi]ntesis|s[íi]ntese|puntos? (?:clave|principales)|pontos?[- ](?:chave|principais)"
    r"|ideas? principales|ideias principais|lo esencial|o essencial|en pocas palabras|em poucas palavras"
    r"|(?:en|em) " + _COUNT + r" (?:frases?|oraciones?|l[íi]neas?|linhas?|p[áa]rrafos?|par[áa]grafos?|puntos?"
    r"|pontos?|vi[ñn]etas?|t[óo]picos?))\b", re.I)

OTHER_TASK = re.compile(
    r"\b(translat\w*|classif\w*|sentiment|proofread\w*|grammar|spelling|typos?|paraphras\w*|rewrite|rephrase"
    r"|judge|grade|evaluat\w*|assess\w*|score|rate|verify|fact-check\w*|critique|compare|answer the question"
    r"|title for|headline for|sql|regex|code|accura\w*|faithful\w*|hallucinat\w*|consistent|improve"
    # French, Spanish, Portuguese (tradu-, compar-, verifi- ... are shared stems)
    r"|tradu\w*|classe[rz]?|corrig\w*|corrij\w*|r[ée][ée]cri\w*|reescr\w*|reformul\w*|parafrase\w*"
    r"|[ée]valu\w*|avali\w*|v[ée]rifi\w*|compar\w*|juge[rz]?|exacte?s?|exat[oa]s?|exact[oa]s?|fid[èe]le|fiel"
    r"|correcte?s?|correct[oa]s?|corret[oa]s?|precis[oa]s?|titre|t[íi]tulo|r[ée]pond(?:s|ez|re)|respond[ea]\w*"
    r"|sentimiento|sentimento|grammaire|gram[áa]tica|orthographe|ortograf[íi]a|califica\w*"
    # German
    r"|[üu]bersetz\w*|klassifizier\w*|korrigier\w*|umformulier\w*|umschreib\w*|bewert\w*|beurteil\w*"
    r"|[üu]berpr[üu]f\w*|pr[üu]fe\w*|vergleich\w*|richtig|korrekt|treu|titel|[üu]berschrift|beantworte\w*"
    r"|grammatik|rechtschreibung)\b", re.I)

# a summary handed over to be judged ("Here is a summary I wrote: ... Is it accurate?"), and the judging asked
SUPPLIED_SUMMARY = re.compile(
    r"(?:here(?:'s| is) (?:a|my|the|our|an) (?:\w+ )?summary|summary (?:i|we) (?:wrote|made|drafted|generated)"
    r"|\b(?:my|this|that|the following|the given|the generated|the candidate|the attached|the proposed|our)"
    r" (?:draft |short |generated )?summary"
    r"|voici (?:un|mon|le|notre) r[ée]sum[ée]|r[ée]sum[ée] que j'ai|\b(?:mon|ce|notre) r[ée]sum[ée]"
    r"|le r[ée]sum[ée] suivant"
    r"|hier ist (?:eine|meine|die|unsere) zusammenfassung|zusammenfassung,? die ich"
    r"|\b(?:meine|diese|folgende|unsere) zusammenfassung"
    r"|aqu[íi] (?:est[áa]|tienes|va) (?:un|mi|el|nuestro) resumen|resumen que (?:escrib|hice|redact)"
    r"|\b(?:mi|este|nuestro) resumen|el siguiente resumen"
    r"|aqui est[áa] (?:um|o|meu|nosso) resumo|resumo que (?:escrevi|fiz|redigi)|\b(?:meu|este|esse|nosso) resumo"
    r"|o seguinte resumo)", re.I)
JUDGING = re.compile(
    r"\b(accura\w*|correct\w*|faithful\w*|consistent|hallucinat\w*|check|verify|evaluat\w*|grade|rate|score"
    r"|compar\w*|judge|assess\w*|right|true|wrong|mistakes?|errors?|miss(?:es|ing)?|improve|exact\w*|fid[èe]le"
    r"|juste|v[ée]rifi\w*|[ée]valu\w*|erreurs?|richtig|korrekt|stimmt|genau|pr[üu]f\w*|[üu]berpr[üu]f\w*"
    r"|bewert\w*|vergleich\w*|fehler\w*|treu|exat[oa]|precis[oa]|fiel|eval[úu]\w*|califica\w*|errores"
    r"|corret[oa]|avali\w*|erros|verdad\w*|verdade\w*|wahr)\b", re.I)

_POLITE = (r"(?:(?:please|now|kindly|then|ok|okay)[,]?\s+|(?:can|could|would|will) you\s+(?:please\s+)?|let's\s+"
           r"|help me\s+|s'il (?:te|vous) pla[iî]t,?\s+|merci de\s+|bitte\s+|por favor,?\s+)")
REQUEST_START = re.compile(
    r"^\W*(?:(?:i|we)(?: need| want| would like|'d like)\b|" + _POLITE + r"?"
    r"(?:summari[sz]e|tl;?dr|condense|sum\b|recap|boil|give|write|provide|list|produce|create|make|generate"
    r"|draft|prepare|return|read|outline|highlight|pull|in (?:\d+|one|two|three|four|five|a few)|what are"
    r"|what's|key|main|summary|a summary|brief|short|quick|here is|here's|below is|the following|bullet"
    r"|task|instructions?|explain|describe|tell me"
    # French
    r"|r[ée]sum\w*|synth[ée]tis\w*|fais|faites|donne\w*|[ée]cri[sv]\w*|r[ée]dige\w*|fourni\w*|liste\w*"
    r"|pr[ée]sente\w*|quels sont|quelles sont|voici|ci-dessous|le texte suivant|l'article suivant|en " + _COUNT +
    r"|points? cl[ée]s|j'ai besoin|je veux|je voudrais|peux-tu|pouvez-vous|pourrais-tu|pourriez-vous|tu peux"
    r"|un r[ée]sum[ée]|explique\w*"
    # German (the verb comes last: "Kannst du diesen Bericht zusammenfassen?")
    r"|fass\w*|zusammenfass\w*|gib|geben sie|schreib\w*|erstell\w*|liste|nenne\w*|hier ist|hier sind"
    r"|folgende\w*|der folgende|den folgenden|die folgende|das folgende|in " + _COUNT +
    r"|ich brauche|ich m[öo]chte|ich h[äa]tte gern\w*|was sind|kernaussagen|die wichtigsten|eine zusammenfassung"
    r"|kurze zusammenfassung|erkl[äa]re|kannst du|k[öo]nnen sie|k[öo]nntest du|k[öo]nnten sie"
    # Spanish and Portuguese
    r"|res[uú]m\w*|sintetiz\w*|haz|hazme|dame|escrib\w*|redact\w*|proporciona|genera|enumera|lista"
    r"|aqu[íi] (?:est[áa]|tienes|va)|a continuaci[óo]n|el siguiente|la siguiente|los siguientes|en " + _COUNT +
    r"|necesito|quiero|me gustar[íi]a|cu[áa]les son|un resumen|explica|puedes|podr[íi]as|podr[íi]a usted"
    r"|fa[çc]a|me d[êe]|d[êe]-me|escreva|redija|forne[çc]a|gere|liste|aqui est[áa]|a seguir|o seguinte"
    r"|a seguinte|em " + _COUNT + r"|preciso|quero|gostaria|quais s[ãa]o|um resumo|explique|pode|voc[êe] pode"
    r"|poderia|voc[êe] poderia))\b", re.I)

_DOCUMENT_NAMES = (
    r"article|text|document|passage|input|content|email|e-mail|transcript|story|report|source|news|essay|post"
    r"|review|notes|meeting notes|conversation|dialogue|chat log|paper|abstract|thread|body"
    r"|texte|courriel|transcription|rapport|compte rendu|artikel|dokument|transkript|bericht|notizen|protokoll"
    r"|nachricht|gespr[äa]ch|texto|art[íi]culo|artigo|documento|correo|transcripci[óo]n|transcri[çc][ãa]o"
    r"|informe|relat[óo]rio|noticia|not[íi]cia|notas|conversaci[óo]n|conversa")
LABEL = re.compile(r"^[ \t]*(?:the |le |la |l'|der |die |das |el |o |a )?(" + _DOCUMENT_NAMES + r")[ \t]*:[ \t]*",
                   re.I | re.M)
_SUMMARY_NAMES = (r"summary|tl;?dr|key points|bullets?|r[ée]sum[ée]|synth[èe]se|zusammenfassung|resumen|resumo"
                  r"|s[íi]ntese|s[íi]ntesis")
OUTPUT_LABEL = re.compile(r"\n[ \t]*(?:" + _SUMMARY_NAMES + r")[ \t]*:?[ \t]*$", re.I)
# "Summary: <text>" hands over a summary (to check, translate ...); only a bare "Summary:" asks for one
LABELLED_ANSWER = re.compile(r"^\W*(?:summary|tl;?dr|key points|r[ée]sum[ée]|zusammenfassung|resumen|resumo)"
                             r"\s*:\s*\S", re.I)
ANSWER_PREAMBLE = re.compile(
    r"^\s*(?:(?:sure[,!.]?\s*)?here(?:'s| is) (?:a |the |your )?(?:brief |short |concise |quick |one-sentence )?"
    r"(?:summary|tl;?dr|overview)[^:\n]{0,60}:\s*|(?:summary|r[ée]sum[ée]|zusammenfassung|resumen|resumo)\s*:\s*"
    r"|tl;?dr\s*:?\s*)", re.I)
# a header label that opens a document on the instruction's own line ("Summarize this email. From: ...")
HEADER_LABEL = re.compile(
    r"(?:^|(?<=[\s.!?]))(?:from|to|cc|bcc|subject|title|date|sent|author|sender|reply-to|re|de|objet|à"
    r"|von|an|betreff|datum|titel|asunto|para|fecha|t[íi]tulo|assunto|data|remitente|remetente)[ \t]*:[ \t]*$",
    re.I)
# an answer that is a verdict, not a summary: "Yes, it is accurate."
VERDICT_ANSWER = re.compile(r"^\W*(?:yes|no|oui|non|ja|nein|s[íi]|n[ãa]o)\b[\s,.!:;-]", re.I)
