"""Chat calls held out from the recognition rules: written after the rules in monitor/scoring/recognise.py and
instruction.py were last changed, and never used to change them.

    python tests/bench/genai_recognition.py openinference --calls heldout

Keep it that way: a miss or a false recognition found here is reported, and a fix to the rules is checked on
new calls written after the fix, not on these. Same record as the test corpus (tests/monitor/scoring/chat_calls.py):
``document`` is what the judge should read, None for a call that is not a summarization.
"""

from __future__ import annotations

from tests.monitor.scoring.chat_calls import ChatCall

STANDUP = ("The platform team shipped the new billing export on Wednesday. Two customers reported duplicate rows "
           "in the CSV, traced to a retry without an idempotency key; a fix is in review. Priya will pair with "
           "Tomas on the migration plan, and the load test moves to next Tuesday because the staging cluster is "
           "being resized.")
PAPER = ("We study how retrieval depth affects answer accuracy in open-domain question answering. On three public "
         "benchmarks, retrieving 20 passages instead of 5 raised exact-match accuracy by 4.1 points on average, "
         "but gains vanished beyond 50 passages and latency tripled. A reranker recovered most of the gain at 10 "
         "passages.")
SUPPORT = ("Customer: My order 55812 arrived with a cracked screen. Agent: Sorry about that. I have issued a "
           "replacement, which ships tomorrow by express courier, and emailed a prepaid label for the damaged unit. "
           "Customer: Great, thanks. Agent: You are welcome; the replacement should arrive by Friday.")
RELEASE = ("Version 3.2 adds single sign-on through SAML, cuts dashboard load time by about a third, and drops "
           "support for Python 3.8. The CSV importer now accepts semicolon-separated files. A bug that hid "
           "archived projects from search is fixed.")
STORY = ("Flooding closed the coastal road between Harwick and Penmore on Sunday after two days of heavy rain. "
         "Forty homes were evacuated and a temporary shelter opened at the Penmore school. The county expects "
         "the road to reopen on Wednesday if the water keeps falling.")
REPORT = ("Quarterly revenue reached 48 million euros, 9 percent above last year, driven by the enterprise tier. "
          "Churn rose from 2.1 to 2.6 percent among small accounts after the price change. Cash reserves cover 30 "
          "months of spending. The board approved hiring 25 engineers in the next two quarters.")

HELDOUT_SUMMARIES = (
    ChatCall("recap below", "", (f"Can you give me a quick recap of the meeting notes below?\n\n{STANDUP}",),
             "Billing export shipped; a duplicate-row fix is in review and the load test moved to Tuesday.", STANDUP),
    ChatCall("bare colon", "", (f"Summarize:\n{STORY}",),
             "Floods closed the Harwick-Penmore road; 40 homes were evacuated.", STORY),
    ChatCall("bullets after", "", (f"{RELEASE}\n\nSummarize in 3 bullets.",),
             "- SAML single sign-on\n- faster dashboards\n- Python 3.8 dropped", RELEASE),
    ChatCall("abstract", "", (f"Write a one-paragraph abstract for the following paper.\n\n{PAPER}",),
             "Deeper retrieval helps accuracy up to a point; a reranker keeps most of the gain cheaply.", PAPER),
    ChatCall("transcript label", "",
             ("Here is a customer support transcript. Provide a short summary of the customer's issue and the "
              f"resolution.\n\nTranscript:\n{SUPPORT}",),
             "A cracked screen on order 55812; a replacement ships by express and arrives Friday.", SUPPORT),
    ChatCall("system summarizer, bare text", "Summarize the conversation for the ticket history.", (SUPPORT,),
             "Damaged screen reported; replacement and return label sent.", SUPPORT),
    ChatCall("markers", "", (f"Please summarise the text between the markers.\n### BEGIN\n{STORY}\n### END",),
             "Flooding closed a coastal road and forced 40 evacuations.", STORY),
    ChatCall("tldr please", "", (f"TLDR please: {REPORT}",),
             "Revenue up 9% to 48M euros; small-account churn rose; 25 hires approved.", REPORT),
    ChatCall("gist", "", (f"Give me the gist of this news story in under 40 words: {STORY}",),
             "Heavy rain flooded the Harwick-Penmore road; it may reopen Wednesday.", STORY),
    ChatCall("document label", "",
             (f"Create a concise summary of the following document, focusing on risks.\n\nDocument:\n{REPORT}",),
             "Churn among small accounts rose after the price change.", REPORT),
    ChatCall("for a child", "", (f"Summarize this for a 5th grader: {PAPER}",),
             "Looking at more pages helps a computer answer questions, but only up to a point.", PAPER),
    ChatCall("key takeaways", "", (f"Key takeaways from this call transcript?\n\n{SUPPORT}",),
             "The customer gets a replacement by Friday and a return label.", SUPPORT),
    ChatCall("summary-only system", "You are a summarization engine. Reply with the summary only.", (RELEASE,),
             "Version 3.2 adds SAML SSO, speeds up dashboards and drops Python 3.8.", RELEASE),
    ChatCall("tags then instruction", "", (f"<article>{STORY}</article>\nSummarize the article above.",),
             "A flood closed the coastal road and 40 homes were evacuated.", STORY),
    ChatCall("executive summary", "", (f"Write an executive summary of this quarterly report:\n\n{REPORT}",),
             "Revenue grew 9% to 48M euros with enterprise demand; churn rose among small accounts.", REPORT),
    ChatCall("shorten", "", (f"Shorten the following release notes to two sentences:\n{RELEASE}",),
             "Version 3.2 brings SAML sign-on and faster dashboards. Python 3.8 is no longer supported.", RELEASE),
)

HELDOUT_OTHERS = (
    ChatCall("translate", "", (f"Translate the following paragraph into French: {STORY}",),
             "Des inondations ont fermé la route côtière...", None),
    ChatCall("judge call", "",
             (f"Is this summary accurate? Summary: The road reopened on Sunday. Article: {STORY}",),
             "No. The article says the road may reopen on Wednesday.", None),
    ChatCall("statistics question", "", ("What is the best summary statistic for skewed data?",),
             "The median is usually preferred.", None),
    ChatCall("haiku", "", ("Write a haiku about summer rain.",), "Warm rain on the roofs...", None),
    ChatCall("extract dates", "", (f"Extract all dates and weekdays mentioned in the text: {STORY}",),
             "Sunday, Wednesday", None),
    ChatCall("grammar", "", (f"Fix the grammar in this paragraph: {RELEASE}",), RELEASE, None),
    ChatCall("sentiment", "", (f"Classify the sentiment of this conversation as positive or negative: {SUPPORT}",),
             "positive", None),
    ChatCall("question about summarization", "",
             ("Summarization models sometimes invent facts. Why do language models hallucinate?",),
             "They predict likely text rather than checking facts...", None),
    ChatCall("sql", "", ("Write a SQL query that returns the sum of sales per region.",),
             "SELECT region, SUM(sales) FROM orders GROUP BY region;", None),
    ChatCall("improve my summary", "",
             ("Here's my summary of the article: the road flooded. Can you improve the wording?",),
             "Heavy flooding closed the coastal road.", None),
    ChatCall("greeting", "You are a helpful assistant.", ("Hi! How are you today?",), "I'm well, thanks!", None),
    ChatCall("titles", "", (f"Generate 5 title ideas for this blog post: {PAPER}",),
             "1. How Deep Should Retrieval Go? ...", None),
    ChatCall("rag question", "",
             (f"Answer the question using the context.\nContext: {STORY}\nQuestion: When may the road reopen?",),
             "On Wednesday, if the water keeps falling.", None),
    ChatCall("how to summarize", "", ("List the key points I should include in a summary of a scientific paper.",),
             "The question, the method, the main result and the limits.", None),
    ChatCall("expand bullets", "", ("Expand these bullet points into a full paragraph:\n- SSO\n- faster dashboards",),
             "This release adds single sign-on and makes dashboards faster.", None),
    ChatCall("what is tldr", "", ("What does TL;DR stand for?",), "Too long; didn't read.", None),
    ChatCall("polite rewrite", "", (f"Rewrite this message to sound more polite: {SUPPORT}",), SUPPORT, None),
    ChatCall("word count", "", (f"Count the words in this text: {REPORT}",), "57", None),
    ChatCall("python summary function", "", ("Write a Python function summary(xs) that returns mean and max.",),
             "def summary(xs): return sum(xs) / len(xs), max(xs)", None),
    ChatCall("action items", "", (f"List the action items with owners from these notes: {STANDUP}",),
             "- Priya and Tomas: migration plan", None),
)
