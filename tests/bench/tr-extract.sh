# tr-extract against jq -c '.traceEvents[]' and a plain Python json.load
# pass, on the same 1 GB trace, plain and gzip.
size=$(stat -c %s "$BIG")
measure "tr-extract trace.json" "$size" "$BIN/tr-extract '$BIG'"
measure "tr-extract -a trace.json" "$size" "$BIN/tr-extract -a '$BIG'"
measure "tr-extract trace.json.gz" "$size" "$BIN/tr-extract '$BIG.gz'"
measure "pigz -dc trace.json.gz | tr-extract" "$size" \
    "pigz -dc '$BIG.gz' | $BIN/tr-extract"
measure "pigz -dc trace.json.gz (decompression alone)" "$size" \
    "pigz -dc '$BIG.gz'"
measure "python3 json.load trace.json" "$size" \
    "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' '$BIG'"
measure "jq -c '.traceEvents[]' trace.json" "$size" \
    "jq -c '.traceEvents[]' '$BIG'"
