# Drops from a `swift-api-digester -dump-sdk` JSON every declaration node marked "isInternal" (a `package` or
# `@usableFromInline` declaration: not API), keeping the JSON valid: array elements are buffered until their closing
# brace, and the comma between kept elements is written when the next one is kept.
function append(text, isElement,    level) {
    level = top
    if (isElement) {
        if (needComma[level]) sub(/\n$/, ",\n", buffer[level])
        needComma[level] = 1
    } else {
        needComma[level] = 0
    }
    buffer[level] = buffer[level] text
}
BEGIN { top = 0; buffer[0] = "" }
{
    match($0, /^ */); indent = RLENGTH
    if ($0 ~ /^ *\{$/) {
        top += 1; buffer[top] = $0 "\n"; opened[top] = indent; internal[top] = 0; needComma[top] = 0
        next
    }
    if (top > 0 && indent == opened[top] && $0 ~ /^ *\},?$/) {
        line = $0; sub(/,$/, "", line)
        text = buffer[top] line "\n"; drop = internal[top]
        delete buffer[top]; top -= 1
        if (!drop) append(text, 1)
        next
    }
    if (top > 0 && indent == opened[top] + 2 && $0 ~ /^ *"isInternal": true,?$/) internal[top] = 1
    append($0 "\n", 0)
}
END { printf "%s", buffer[0] }
