/**
 * The demo feed: comments under three articles, written for Warden's demo, in English, French, German,
 * Spanish, Italian and Dutch — mostly ordinary, some supportive, some critical, some abusive — so the
 * first run shows every kind of verdict. No real person is named or quoted.
 */

/** One comment of the demo feed. */
export interface DemoComment {
  readonly id: string
  readonly article: string
  readonly author: string
  readonly language: string
  readonly text: string
}

const ARTICLES = {
  bikes: "City council votes to double the number of bike lanes",
  match: "Late goal sends the home side into the cup final",
  recipe: "Ten-minute tomato soup that tastes like summer"
} as const

const raw: ReadonlyArray<readonly [keyof typeof ARTICLES, string, string, string]> = [
  ["bikes", "mira_k", "en", "Finally! I cycle to work every day and this will make it so much safer."],
  ["bikes", "tom.h", "en", "Great news for the neighbourhood, thanks for reporting on it."],
  ["bikes", "jdawson", "en", "I think the budget would have been better spent on buses, honestly."],
  ["bikes", "roadrunner77", "en", "Whoever voted for this is an idiot and should be ashamed."],
  ["bikes", "lena_b", "en", "Does anyone know when the works on the main street start?"],
  ["bikes", "pedal_power", "en", "Love this. Our kids can finally ride to school."],
  ["bikes", "carguy", "en", "You cyclists are pathetic losers, get off the road."],
  ["bikes", "anon4421", "en", "If they close my street I will find the councillor and hurt him."],
  ["bikes", "sam_w", "en", "The article says 40 km of new lanes, is that including the painted ones?"],
  ["bikes", "julie.m", "fr", "Enfin une bonne nouvelle pour les cyclistes, merci !"],
  ["bikes", "pierre_l", "fr", "Je ne suis pas convaincu, les pistes actuelles sont déjà vides."],
  ["bikes", "marc75", "fr", "Espèce d'imbécile, tu ne comprends rien à la ville."],
  ["bikes", "annika", "de", "Super Entscheidung, ich freue mich auf sichere Radwege."],
  ["bikes", "kurt_r", "de", "Das ist reine Geldverschwendung, finde ich."],
  ["bikes", "stefan88", "de", "Du bist ein Idiot, halt einfach den Mund."],
  ["bikes", "eva_nl", "nl", "Heel goed nieuws, eindelijk veilig fietsen in de stad."],
  ["bikes", "joost", "nl", "Wat een idioot plan, niemand fietst daar."],
  ["bikes", "lucia", "es", "¡Qué buena noticia! Gracias por el artículo."],
  ["bikes", "manolo", "es", "Eres un idiota si crees que esto va a funcionar."],
  ["bikes", "giulia", "it", "Ottima notizia per chi va in bici, grazie!"],
  ["match", "ultra_fan", "en", "What a goal! Best night of the season."],
  ["match", "neutral_nick", "en", "Decent match, but the referee missed a clear penalty in the first half."],
  ["match", "red_scarf", "en", "The keeper was terrible today, he cost us two goals."],
  ["match", "hooligan_99", "en", "Their fans are scum, I hope someone beats them up after the game."],
  ["match", "coachbob", "en", "Proud of the youngsters, they played with real heart."],
  ["match", "stats_guy", "en", "Possession was 58 to 42, shots on target 7 to 3."],
  ["match", "angry_al", "en", "The ref is a corrupt idiot, he should be banned for life."],
  ["match", "kim_j", "en", "Thank you to the team for an unforgettable evening!"],
  ["match", "le_supporter", "fr", "Quel match incroyable, bravo à toute l'équipe !"],
  ["match", "fred_b", "fr", "L'arbitre était nul ce soir, vraiment décevant."],
  ["match", "zizou_fan", "fr", "Je vais te retrouver et te frapper, sale arbitre."],
  ["match", "hans_m", "de", "Was für ein Spiel, Gratulation an die Mannschaft!"],
  ["match", "dieter", "de", "Ich werde dich finden, du wirst es bereuen."],
  ["match", "pablo", "es", "Partidazo, enhorabuena al equipo."],
  ["match", "rafa_c", "es", "El portero es un inútil, siempre falla."],
  ["match", "marco", "it", "Che partita! Complimenti a tutti."],
  ["match", "luigi_t", "it", "Sei un idiota, non capisci niente di calcio."],
  ["match", "bram", "nl", "Geweldige wedstrijd, trots op de ploeg."],
  ["match", "sanne", "nl", "De scheidsrechter was slecht vandaag."],
  ["match", "quiet_reader", "en", "Was anyone else at the stadium? The atmosphere was amazing."],
  ["recipe", "homecook", "en", "Made this tonight, my family loved it. Thank you!"],
  ["recipe", "chef_dan", "en", "A pinch of smoked paprika makes it even better."],
  ["recipe", "picky_eater", "en", "Too bland for me, I added garlic and chili."],
  ["recipe", "troll_king", "en", "Only a moron would call this a recipe, you stupid cook."],
  ["recipe", "nora", "en", "Can I use canned tomatoes in winter?"],
  ["recipe", "vegan_vic", "en", "Works great with oat cream instead of dairy."],
  ["recipe", "grumpy_gus", "en", "This is disgusting and so are you, nobody wants your garbage."],
  ["recipe", "marie_c", "fr", "Délicieux et tellement simple, merci pour la recette."],
  ["recipe", "gastronome", "fr", "Un peu trop salé à mon goût, mais bonne base."],
  ["recipe", "oma_lisa", "de", "Sehr lecker, das koche ich jetzt jede Woche."],
  ["recipe", "kritiker", "de", "Ehrlich gesagt eher langweilig."],
  ["recipe", "carmen", "es", "Muy rica, la hice con albahaca fresca."],
  ["recipe", "chiara", "it", "Buonissima, grazie per la ricetta!"],
  ["recipe", "nonna_rosa", "it", "Manca il basilico, ma è buona."],
  ["recipe", "pieter", "nl", "Lekker recept, snel klaar na het werk."],
  ["recipe", "lotte", "nl", "Ik vond het te zuur, volgende keer met wat suiker."],
  ["recipe", "spam_bot_3000", "en", "You are all worthless idiots, this site is a joke."],
  ["recipe", "jo_writes", "en", "Lovely photos too. Keep these quick recipes coming!"],
  ["recipe", "ahmed", "en", "I made it with roasted peppers, highly recommend."],
  ["recipe", "threatening_tim", "en", "Delete this recipe or I will kill you."]
]

/** The demo comments, in posting order. */
export const comments: ReadonlyArray<DemoComment> = raw.map(([article, author, language, text], i) => ({
  id: `demo-${String(i + 1).padStart(3, "0")}`,
  article: ARTICLES[article],
  author,
  language,
  text
}))
