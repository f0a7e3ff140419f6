System.Console.WriteLine(Stolen.Text);
