package org.example.money;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import java.math.BigDecimal;
import org.junit.Test;

public class MoneyFormatTest {

    private static final MoneyFormat EUROPEAN = new MoneyFormat(MoneyFormat.Style.PLAIN, '.', ',');
    private static final MoneyFormat CODES = new MoneyFormat(MoneyFormat.Style.CODE, ',', '.');

    private static Money money(String amount, String code) {
        return Money.of(new BigDecimal(amount), CurrencyUnit.of(code));
    }

    @Test
    public void formatsWithSymbolAndGrouping() {
        assertEquals("-$1,234.50", MoneyFormat.standard().format(money("-1234.5", "USD")));
        assertEquals("$0.99", MoneyFormat.standard().format(money("0.99", "USD")));
        assertEquals("\u00a51,000,000", MoneyFormat.standard().format(money("1000000", "JPY")));
    }

    @Test
    public void formatsWithCode() {
        assertEquals("USD 1,234,567.89", CODES.format(money("1234567.89", "USD")));
        assertEquals("-KWD 12.500", CODES.format(money("-12.5", "KWD")));
    }

    @Test
    public void formatsPlainWithEuropeanSeparators() {
        assertEquals("1.234,50", EUROPEAN.format(money("1234.50", "EUR")));
    }

    @Test
    public void parsesWhatItFormats() throws MoneyParseException {
        Money amount = money("-98765.43", "GBP");
        MoneyFormat standard = MoneyFormat.standard();
        assertEquals(amount, standard.parse(standard.format(amount), null));
        assertEquals(amount, CODES.parse(CODES.format(amount), null));
        assertEquals(amount, EUROPEAN.parse(EUROPEAN.format(amount), CurrencyUnit.of("GBP")));
    }

    @Test
    public void parsePicksTheLongestMatchingSymbol() throws MoneyParseException {
        assertEquals(money("5.00", "AUD"), MoneyFormat.standard().parse("A$5", null));
        assertEquals(money("1000", "CLP"), MoneyFormat.standard().parse("CLP$1,000", null));
        assertEquals(money("5", "USD"), MoneyFormat.standard().parse("  $5.00 ", null));
    }

    @Test
    public void parseUsesTheFallbackCurrencyForPlainNumbers() throws MoneyParseException {
        assertEquals(money("12.30", "EUR"), CODES.parse("12.3", CurrencyUnit.EUR));
    }

    @Test(expected = MoneyParseException.class)
    public void parseRequiresACurrency() throws MoneyParseException {
        CODES.parse("12.30", null);
    }

    @Test
    public void parseRejectsMalformedInput() {
        MoneyFormat format = MoneyFormat.standard();
        assertThrows(MoneyParseException.class, () -> format.parse("  ", null));
        assertThrows(MoneyParseException.class, () -> format.parse("$12.3x", null));
        assertThrows(MoneyParseException.class, () -> format.parse("XYZ 10.00", null));
        assertThrows(MoneyParseException.class, () -> format.parse("$1.005", null));
    }

    @Test(expected = IllegalArgumentException.class)
    public void separatorsMustDiffer() {
        new MoneyFormat(MoneyFormat.Style.SYMBOL, '.', '.');
    }
}
