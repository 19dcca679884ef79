/**
 * Language detectors measured for the sandbox's classifier: accuracy on 60 short texts (10 each in
 * en, fr, de, es, it, nl) and time per call. The sandbox uses the winner, `eld` (small database).
 *
 *   pnpm exec node --conditions=@warden/source bench/sandbox-language.ts
 */
const modules = new URL("../packages/sandbox/node_modules/", import.meta.url)
const tinyld = await import(new URL("tinyld/dist/tinyld.normal.node.mjs", modules).href)
const { eld } = await import(new URL("eld/src/entries/static.small.js", modules).href)
const { franc } = await import(new URL("franc-min/index.js", modules).href)
console.log("measuring tinyld, eld (small), franc-min on 60 short texts ...")
const S = {
  en: [
    "you are an idiot",
    "I love this video so much",
    "this is the worst game ever made",
    "thanks for sharing, great work",
    "I will find you and hurt you",
    "what a stupid idea honestly",
    "nice goal by the striker",
    "the referee was terrible today",
    "go back to your country",
    "this looks amazing"
  ],
  fr: [
    "tu es un idiot",
    "j'adore cette vidéo",
    "c'est le pire jeu jamais fait",
    "merci pour le partage, super travail",
    "je vais te retrouver et te frapper",
    "quelle idée stupide franchement",
    "beau but de l'attaquant",
    "l'arbitre était nul aujourd'hui",
    "rentre dans ton pays",
    "ça a l'air génial"
  ],
  de: [
    "du bist ein idiot",
    "ich liebe dieses Video",
    "das ist das schlechteste Spiel aller Zeiten",
    "danke fürs Teilen, tolle Arbeit",
    "ich werde dich finden und dir wehtun",
    "was für eine dumme Idee",
    "schönes Tor vom Stürmer",
    "der Schiedsrichter war heute schrecklich",
    "geh zurück in dein Land",
    "das sieht toll aus"
  ],
  es: [
    "eres un idiota",
    "me encanta este video",
    "es el peor juego de la historia",
    "gracias por compartir, buen trabajo",
    "te voy a encontrar y hacer daño",
    "qué idea tan estúpida",
    "buen gol del delantero",
    "el árbitro fue terrible hoy",
    "vuelve a tu país",
    "esto se ve increíble"
  ],
  it: [
    "sei un idiota",
    "adoro questo video",
    "è il peggior gioco mai fatto",
    "grazie per la condivisione, ottimo lavoro",
    "ti troverò e ti farò del male",
    "che idea stupida davvero",
    "bel gol dell'attaccante",
    "l'arbitro è stato terribile oggi",
    "torna nel tuo paese",
    "sembra fantastico"
  ],
  nl: [
    "je bent een idioot",
    "ik hou van deze video",
    "dit is het slechtste spel ooit",
    "bedankt voor het delen, goed werk",
    "ik ga je vinden en pijn doen",
    "wat een dom idee eerlijk gezegd",
    "mooi doelpunt van de spits",
    "de scheidsrechter was vandaag verschrikkelijk",
    "ga terug naar je land",
    "dit ziet er geweldig uit"
  ]
}
const iso3: Record<string, string> = { eng: "en", fra: "fr", deu: "de", spa: "es", ita: "it", nld: "nl" }
const detectors: Record<string, (t: string) => string> = {
  tinyld: (t) => tinyld.detect(t, { only: ["en", "fr", "de", "es", "it", "nl"] }),
  "tinyld(all)": (t) => tinyld.detect(t),
  eld: (t) => eld.detect(t).language,
  "franc-min": (t) => iso3[franc(t, { only: Object.keys(iso3), minLength: 1 })] ?? "und"
}
// eld subset
for (const [name, f] of Object.entries(detectors)) {
  let ok = 0,
    n = 0
  for (const [lang, xs] of Object.entries(S))
    for (const x of xs as Array<string>) {
      n++
      if (f(x) === lang) ok++
    }
  const all = Object.values(S).flat()
  for (let i = 0; i < 2000; i++) f(all[i % all.length]!)
  const t0 = performance.now()
  const N = 20000
  for (let i = 0; i < N; i++) f(all[i % all.length]!)
  const us = ((performance.now() - t0) * 1000) / N
  console.log(`${name}: accuracy ${ok}/${n}, ${us.toFixed(1)} µs/call`)
}
