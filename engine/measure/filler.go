package measure

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// Word lists for the filler text. Sentences are drawn from several templates
// with a seeded generator, so the text is deterministic but never a repeated
// phrase: a tokenizer sees ordinary, varied English.
var (
	fillerSubjects = []string{
		"The engineer", "A small team", "The old lighthouse keeper", "Our neighbour", "The committee",
		"A curious student", "The night shift", "The orchestra", "A travelling merchant", "The river pilot",
		"The museum guide", "A retired teacher", "The village baker", "The research group", "A young painter",
		"The harbour master", "The gardener", "A quiet librarian", "The mountain guide", "The ferry crew",
	}
	fillerVerbs = []string{
		"measured", "repaired", "described", "carried", "painted", "counted", "questioned", "photographed",
		"rebuilt", "studied", "sketched", "recorded", "weighed", "catalogued", "tested", "polished",
		"explained", "followed", "compared", "collected",
	}
	fillerAdjectives = []string{
		"narrow", "copper", "forgotten", "crowded", "silent", "northern", "fragile", "bright", "ancient",
		"muddy", "wooden", "distant", "curved", "heavy", "yellow", "patient", "broken", "careful", "hidden",
		"seasonal",
	}
	fillerObjects = []string{
		"bridge", "telescope", "map of the coast", "clock tower", "set of letters", "garden wall",
		"weather station", "row of lanterns", "fishing boat", "archive of photographs", "stone staircase",
		"water mill", "collection of seeds", "railway signal", "market stall", "violin", "glass roof",
		"orchard", "printing press", "canal lock",
	}
	fillerPlaces = []string{
		"near the harbour", "before the first snow", "after the long storm", "behind the station",
		"on the eastern hill", "during the spring fair", "under the old elms", "beside the canal",
		"at the edge of the valley", "in the late afternoon", "across the square", "by the salt marsh",
	}
	fillerReasons = []string{
		"because the records were incomplete", "so that the children could see it", "while the tide was low",
		"although nobody had asked", "since the budget allowed it", "until the light faded",
		"as the town council had promised", "before the visitors arrived",
	}
)

// fillerText returns at least minBytes of deterministic, varied prose: the
// same bytes on every call, so its prefixes are stable across runs.
func fillerText(minBytes int) string {
	rng := rand.New(rand.NewPCG(0x5eed, 0x6d617472))
	var b strings.Builder
	b.Grow(minBytes + 256)
	sentence := 0
	for b.Len() < minBytes {
		writeFillerSentence(&b, rng, sentence)
		sentence++
		if sentence%7 == 0 {
			b.WriteString("\n\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func writeFillerSentence(b *strings.Builder, rng *rand.Rand, n int) {
	pick := func(list []string) string { return list[rng.IntN(len(list))] }
	switch rng.IntN(5) {
	case 0:
		b.WriteString(pick(fillerSubjects) + " " + pick(fillerVerbs) + " the " + pick(fillerAdjectives) +
			" " + pick(fillerObjects) + " " + pick(fillerPlaces) + ".")
	case 1:
		b.WriteString(strings.ToUpper(pick(fillerPlaces)[:1]) + pick(fillerPlaces)[1:] + ", " +
			strings.ToLower(pick(fillerSubjects)[:1]) + pick(fillerSubjects)[1:] + " " + pick(fillerVerbs) +
			" a " + pick(fillerAdjectives) + " " + pick(fillerObjects) + " " + pick(fillerReasons) + ".")
	case 2:
		b.WriteString("In year " + strconv.Itoa(1700+rng.IntN(320)) + ", " + strconv.Itoa(2+rng.IntN(97)) + " " +
			pick(fillerAdjectives) + " lanterns lit the " + pick(fillerObjects) + ", and " +
			strings.ToLower(pick(fillerSubjects)[:1]) + pick(fillerSubjects)[1:] + " " + pick(fillerVerbs) + " them.")
	case 3:
		b.WriteString("Why was the " + pick(fillerObjects) + " so " + pick(fillerAdjectives) + "? " +
			pick(fillerSubjects) + " never said, " + pick(fillerReasons) + ".")
	default:
		b.WriteString("Note " + strconv.Itoa(n+1) + ": the " + pick(fillerAdjectives) + " " + pick(fillerObjects) +
			" was " + pick(fillerVerbs) + " " + pick(fillerPlaces) + " " + pick(fillerReasons) + ".")
	}
}
