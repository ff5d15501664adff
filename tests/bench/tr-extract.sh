# tr-extract beside what reading the same bytes costs anyway (cat, gzip -dc)
# and beside a plain Python json.load pass that touches every event, and jq
# -c where it finishes, on a 250 MB trace of each layout: the legacy bare
# array (the hardest per byte) and Kineto's object.  The ratios issue 17
# asks for follow, each with its target.  The 1 GB trace alone is in
# report.sh.
PYLOAD="import json, sys
doc = json.load(open(sys.argv[1]))
ev = doc['traceEvents'] if isinstance(doc, dict) else doc
print(sum(1 for e in ev if e.get('ph') == 'X' and e.get('name') and 'ts' in e))"

# secs LINE, mbs LINE: a figure from a line measure printed.
secs() { figures "$1" | cut -d ' ' -f 1; }
mbs() { figures "$1" | cut -d ' ' -f 2; }

for layout in legacy kineto; do
	if [ $layout = legacy ]; then f=$L250; else f=$T250; fi
	size=$(stat -c %s "$f")
	name=$(basename "$f")
	measure "cat $name" "$size" "cat '$f'"
	gz=$(measure "gzip -dc $name.gz" "$size" "gzip -dc '$f.gz'")
	echo "$gz"
	py=$(measure "python3 json.load + dict access" "$size" \
	    "python3 -c \"$PYLOAD\" '$f'")
	echo "$py"
	if [ "$size" -le 300000000 ]; then
		measure "jq -c '.[]' $name" "$size" \
		    "jq -c 'if type == \"array\" then .[] else .traceEvents[] end' '$f'"
	else
		echo "jq: skipped above 300 MB"
	fi
	tr=$(measure "tr-extract $name" "$size" "$BIN/tr-extract '$f'")
	echo "$tr"
	if [ $layout = kineto ]; then
		measure "tr-extract -a $name" "$size" "$BIN/tr-extract -a '$f'"
	fi
	trgz=$(measure "tr-extract $name.gz" "$size" "$BIN/tr-extract '$f.gz'")
	echo "$trgz"
	awk -v l=$layout -v py="$(secs "$py")" -v tr="$(secs "$tr")" \
	    -v mbs="$(mbs "$tr")" -v gz="$(secs "$gz")" \
	    -v trgz="$(secs "$trgz")" 'BEGIN {
		if (l == "legacy")
			printf "%s: tr-extract is %.1fx python3 json.load (target >= 12x)\n",
			    l, (tr > 0 ? py / tr : 0)
		else
			printf "%s: tr-extract %.0f MB/s (target >= 400 MB/s)\n",
			    l, mbs
		printf "%s: tr-extract on .gz takes %.2fx gzip -dc (target <= 1.5x)\n",
		    l, (gz > 0 ? trgz / gz : 0)
	}'
done
