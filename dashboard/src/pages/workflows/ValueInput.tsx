import { type InputHTMLAttributes, useEffect, useState } from "react";
import { Input } from "../../ui/Input";

/**
 * A text box for a value that is stored parsed (a number, a list): it keeps what was typed
 * (`1.50`, `a, `) while it still means the same value, and shows the value anew when it changes elsewhere.
 */
export function ValueInput({
  value,
  parse,
  show,
  onValue,
  ...rest
}: {
  value: unknown;
  parse: (text: string) => unknown;
  show: (value: unknown) => string;
  onValue: (value: unknown) => void;
} & Omit<InputHTMLAttributes<HTMLInputElement>, "value" | "onChange">) {
  const [text, setText] = useState(() => show(value));
  useEffect(() => {
    setText((current) => (JSON.stringify(parse(current)) === JSON.stringify(value) ? current : show(value)));
  }, [value, parse, show]);
  return (
    <Input
      {...rest}
      value={text}
      onChange={(e) => {
        setText(e.target.value);
        onValue(parse(e.target.value));
      }}
    />
  );
}
