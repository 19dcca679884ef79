/**
 * The classifier's multilingual lexicon (en, fr, de, es, it, nl): single words and phrases per text
 * classification, plus the cues for `directedAt`. Entries are lower-case without accents, as
 * `normalize` produces them; a phrase matches on whole words.
 */

/** The categories the lexicon recognises. */
export type Category = "INSULT" | "HATRED" | "THREAT" | "CRITICISM" | "SUPPORTIVE" | "HATE_VERB" | "GROUP"

/** Lower-case, accents removed, words separated by single spaces, padded with a space on each side. */
export const normalize = (text: string): string =>
  ` ${text
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}@]+/u)
    .filter((w) => w !== "")
    .join(" ")} `

const words = (s: string): Array<string> =>
  s
    .split("|")
    .map((w) => w.trim())
    .filter((w) => w !== "")

const INSULT = words(`
  idiot|idiots|stupid|moron|morons|dumb|dumbass|loser|losers|jerk|fool|imbecile|retard|clown|pathetic|worthless|
  bitch|bastard|asshole|scum|cretin|twat|dickhead|prick|
  conne|connard|connards|connasse|debile|debiles|abruti|abrutie|cretins|tocard|salope|encule|batard|naze|
  dumm|dummkopf|trottel|depp|vollidiot|arschloch|blodmann|penner|wichser|hurensohn|schlampe|versager|idioten|
  idiota|idiotas|estupido|estupida|imbecil|tonto|tonta|pendejo|gilipollas|cabron|perdedor|payaso|inutil|
  stupido|stupida|cretino|scemo|imbecille|stronzo|coglione|deficiente|sfigato|buffone|
  idioot|sukkel|klootzak|eikel|lul|debiel|mongool|oen|kneus|zakkenwasser`)

const INSULT_PHRASES = words(`
  shut up|piece of shit|and so are you|nobody wants you|ferme ta gueule|pauvre type|pauvre con|halt die klappe|halt s maul|cierra la boca|
  hijo de puta|stai zitto|testa di cazzo|hou je bek|kop dicht`)

const HATRED = words(`
  subhuman|subhumans|vermin|vermine|untermensch|untermenschen|ungeziefer|parasites|parasiten|parassiti|parasitos|
  ongedierte|degenerates|infideles|scum of the earth`)

const HATRED_PHRASES = words(`
  go back to your country|go back where you came from|rentre dans ton pays|retourne dans ton pays|
  geh zuruck in dein land|geht zuruck in euer land|vuelve a tu pais|torna nel tuo paese|tornatevene a casa|
  ga terug naar je land|ga terug naar je eigen land|should be exterminated|must be exterminated|
  ausrotten|doivent etre extermines|deben ser exterminados|devono essere sterminati|moeten worden uitgeroeid`)

const HATE_VERB = words(`hate|hates|hais|hait|deteste|detestons|hasse|hassen|odio|odiamos|odiare|haat|haten`)

const GROUP = words(`
  immigrants|migrants|foreigners|refugees|muslims|jews|christians|gays|women|blacks|arabs|
  immigres|etrangers|refugies|musulmans|juifs|femmes|arabes|
  auslander|migranten|fluchtlinge|muslime|juden|frauen|
  inmigrantes|extranjeros|refugiados|musulmanes|judios|mujeres|
  immigrati|stranieri|rifugiati|musulmani|ebrei|donne|
  immigranten|buitenlanders|vluchtelingen|moslims|joden|vrouwen`)

const THREAT = words(`murder|stab|behead|strangle|egorger|abattre|erstechen|apunalar|accoltellare|neersteken`)

const THREAT_PHRASES = words(`
  kill you|i will kill|i ll kill|gonna kill|going to kill|hurt you|find you and|beat you up|shoot you|
  you re dead|you are dead|watch your back|burn your house|hurt him|hurt her|hurt them|i will find|
  beats them up|beat them up|beat him up|beat her up|kill him|kill her|kill them|
  je vais te tuer|te tuer|je vais te retrouver|te frapper|je vais te buter|on va te buter|
  ich bringe dich um|bring dich um|ich werde dich finden|ich tote dich|dir wehtun|dich umbringen|
  te voy a matar|te mato|te voy a encontrar|hacerte dano|hacer dano|
  ti ammazzo|ti uccido|ti trovero|ti faro del male|ti spacco|
  ik maak je af|ik vermoord je|ik ga je vinden|pijn doen|ik sla je`)

const CRITICISM = words(`
  bad|terrible|awful|worst|boring|disappointing|disappointed|overrated|rubbish|horrible|sucks|lame|useless|mediocre|
  garbage|trash|disgusting|
  nul|nulle|mauvais|mauvaise|decevant|decevante|ennuyeux|pire|mediocre|
  schlecht|schrecklich|langweilig|enttauschend|schlechteste|mies|grottig|
  malo|mala|peor|aburrido|decepcionante|fatal|
  brutto|pessimo|peggior|peggiore|noioso|deludente|terribile|orribile|
  slecht|slechtste|saai|verschrikkelijk|teleurstellend|waardeloos|vreselijk`)

const CRITICISM_PHRASES = words(
  `waste of time|perte de temps|zeitverschwendung|perdida de tiempo|perdita di tempo|zonde van de tijd`
)

const SUPPORTIVE = words(`
  love|great|awesome|amazing|thanks|thank|excellent|brilliant|beautiful|nice|wonderful|fantastic|congrats|
  congratulations|bravo|
  merci|super|genial|magnifique|adore|felicitations|formidable|
  danke|toll|wunderbar|klasse|grossartig|großartig|liebe|prima|
  gracias|increible|excelente|encanta|precioso|felicidades|maravilloso|
  grazie|fantastico|bellissimo|ottimo|adoro|complimenti|meraviglioso|stupendo|
  bedankt|geweldig|mooi|prachtig|top|fantastisch|gefeliciteerd`)

const SUPPORTIVE_PHRASES = words(
  `well done|good job|great job|goed gedaan|gut gemacht|bien joue|buen trabajo|ben fatto`
)

/** Second-person pronouns: content aimed at the person addressed. */
export const SECOND_PERSON = new Set(
  words(`
  you|your|youre|u|ur|yours|yourself|
  tu|toi|te|ton|ta|tes|t|
  du|dich|dir|dein|deine|deinen|
  tu|ti|te|tuyo|eres|
  sei|tuo|tua|
  jij|je|jou|jouw|bent`)
)

/** Single words, by category. */
export const WORDS: ReadonlyMap<string, Category> = new Map<string, Category>([
  ...SUPPORTIVE.map((w) => [w, "SUPPORTIVE"] as const),
  ...CRITICISM.map((w) => [w, "CRITICISM"] as const),
  ...GROUP.map((w) => [w, "GROUP"] as const),
  ...HATE_VERB.map((w) => [w, "HATE_VERB"] as const),
  ...INSULT.map((w) => [w, "INSULT"] as const),
  ...HATRED.map((w) => [w, "HATRED"] as const),
  ...THREAT.map((w) => [w, "THREAT"] as const)
])

/** Phrases (several words), by category, each padded with spaces for whole-word matching. */
export const PHRASES: ReadonlyArray<readonly [string, Category]> = [
  ...THREAT_PHRASES.map((p) => [` ${p} `, "THREAT"] as const),
  ...HATRED_PHRASES.map((p) => [` ${p} `, "HATRED"] as const),
  ...INSULT_PHRASES.map((p) => [` ${p} `, "INSULT"] as const),
  ...CRITICISM_PHRASES.map((p) => [` ${p} `, "CRITICISM"] as const),
  ...SUPPORTIVE_PHRASES.map((p) => [` ${p} `, "SUPPORTIVE"] as const)
]
