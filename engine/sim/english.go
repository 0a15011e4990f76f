package sim

import "strings"

// englishWords are common English words of five letters or more: with them
// in the vocabulary, ordinary prose costs about a token per four characters
// as with a real BPE tokenizer (shorter words are a single letter piece
// anyway). Generated text never uses them.
var englishWords = strings.Fields(`
about above across action actually added after again against almost alone along already
also although always among amount another answer anyone anything appear applied approach
area around asked attention available average away

based basic beautiful became because become becomes before began begin beginning behind
being believe below best better between beyond black blood board body bring brought
build building built business

called cannot carried carry cause center central certain certainly chance change changed
changes character child children church circle city class clear clearly close closed
coast cold colour color common community company complete completely computer condition
conditions consider considered contains continue continued control could country course
court cover create created current

daily dark daughter death decided decision deep describe described design despite detail
details develop developed development difference different difficult direction distance
doctor during

early earth economic education effect effort either else energy enough entire environment
especially evening event events every everyone everything evidence exactly example
experience explain expected

family father field final finally financial first floor follow followed following force
forces forest forget form former found friend friends front further future

garden general given giving global government great green ground group groups growing
growth

happened happy health heard heart heavy help history house however human hundred

idea important include included including increase industry information inside instead
interest interesting international island itself

journey judge just keep kept kind kitchen knew know knowledge known

language large larger later laughed least leave leaving left length less letter letters
level light likely listen little lived living local long longer looked looking lower

machine major making market material matter maybe meaning measure measured meeting member
members memory message method middle might million minutes model moment money month
months morning mother mountain moved movement music myself

national natural nature nearly necessary needed never night north nothing noticed number
numbers

object ocean offer office often order ordinary other others otherwise outside over own

paper parents particular party passed past patient people perhaps period person personal
picture piece place placed plant plants point police political population position
possible power practice present president pressure pretty price private probably problem
problems process produce product program project provide public purpose

question questions quickly quiet quite

rather reached reading ready real reason received recent recently record remember report
research rest result results return returned right river road rough round rules

school science scientists season second seemed seen sense service several shall shape
short should shoulder shown side signal significant similar simple simply since single
sister situation small social society something sometimes soon sound south space speak
special spent spring square stand standard start started state states station still
stood stopped story street strong structure student students study subject suddenly
summer support surface system systems

table taken talking teacher teachers technology terms than that their them themselves
then theory there therefore these they thing things think thinking third those though
thought thousand three through throughout today together told took total toward towards
trade travel tree trees tried trouble true truth trying turned

under understand understanding until upon usually

value various village voice

wanted water weather week weeks well went were western what whatever when where whether
which while white whole whose wife window winter with within without woman women wonder
wondered words work worked working world would write writing written wrong

years yellow young yourself
`)
