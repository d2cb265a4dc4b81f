/** The notification every push conformance test sends: every field a push adapter maps. */
export const pushContent = {
  title: "Order shipped",
  body: "Order 42 is on its way ✓",
  data: { orderId: "42", items: 3 },
  badge: 2,
  sound: "default",
  imageUrl: "https://cdn.example.com/box.png",
};
